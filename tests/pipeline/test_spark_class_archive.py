"""The tests' Spark JVMs map the class-data-sharing archive `scripts/test` makes
(tests/support/spark_jvm.py): Java maps it silently or not at all, so a class path that no
longer matches the archive's (another environment's PySpark, a non-empty configuration
folder) would only show as a slower suite. Here it shows as a failure."""
from __future__ import annotations

import pytest
from support import spark_jvm
from support.ci import in_ci


def test_the_sessions_jvm_maps_the_spark_class_archive(spark) -> None:
    archive = spark_jvm.current().archive
    if archive is None:
        if in_ci():
            pytest.fail("no Spark class archive: scripts/test makes it (python tests/support/spark_jvm.py)")
        pytest.skip("no Spark class archive: python tests/support/spark_jvm.py makes it")
    jvm = spark._jvm
    bean = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
    assert bean.getVMOption("SharedArchiveFile").getValue() == str(archive)
    assert bean.getVMOption("UseSharedSpaces").getValue() == "true"
