"""`python -m app.pipeline.jvm build`: build the JVM decoder's jar and print its path.

Exits 1 when this machine cannot build it (no javac, no PySpark) and 2 when javac refuses the
package's own source, so that a script can tell a missing tool from a defect."""
import sys

from app.pipeline.jvm import JvmBuildFailed, JvmUnavailable, jar_path

if sys.argv[1:] != ["build"]:
    sys.exit("usage: python -m app.pipeline.jvm build")
try:
    print(jar_path())
except JvmBuildFailed as exc:
    print(f"the JVM decoder's source does not compile: {exc}", file=sys.stderr)
    sys.exit(2)
except JvmUnavailable as exc:
    sys.exit(f"cannot build the JVM decoder: {exc}")
