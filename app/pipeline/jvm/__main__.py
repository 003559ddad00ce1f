"""`python -m app.pipeline.jvm build`: build the JVM decoder's jar and print its path."""
import sys

from app.pipeline.jvm import JvmUnavailable, jar_path

if sys.argv[1:] != ["build"]:
    sys.exit("usage: python -m app.pipeline.jvm build")
try:
    print(jar_path())
except JvmUnavailable as exc:
    sys.exit(f"cannot build the JVM decoder: {exc}")
