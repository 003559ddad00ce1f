"""TLS to the registries: a private CA given with --from-ca/--to-ca, client certificates
with --from-cert/--from-key; without the CA the command fails in one line."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import requests

from transfer_helpers import run_cli


def test_export_and_import_over_tls_with_a_private_ca_and_client_certificates(registry, tls_files, tmp_path) -> None:
    mutual = replace(tls_files, require_client=True)
    source = registry("sqlite", tls=mutual)
    target = registry("sqlite", tls=tls_files)
    dump = tmp_path / "tls.dump"
    requests.post(f"{source}/subjects/s/versions", json={"schema": '"string"'}, verify=str(tls_files.ca),
                  cert=(str(tls_files.client_cert), str(tls_files.client_key)), timeout=10).raise_for_status()

    done = run_cli("export", "--from", source, "--from-ca", str(tls_files.ca), "--from-cert",
                   str(tls_files.client_cert), "--from-key", str(tls_files.client_key), "--output", str(dump))
    assert done.returncode == 0, done.stderr
    done = run_cli("import", "--to", target, "--to-ca", str(tls_files.ca), str(dump))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1 written, 0 already present"

    untrusted = run_cli("import", "--to", target, str(dump))
    assert untrusted.returncode == 1
    assert untrusted.stderr.count("\n") == 1 and untrusted.stderr.startswith("error: ")
    no_client_cert = run_cli("export", "--from", source, "--from-ca", str(tls_files.ca),
                             "--output", str(tmp_path / "never.dump"))
    assert no_client_cert.returncode == 1 and not Path(tmp_path / "never.dump").exists()
    assert no_client_cert.stderr.startswith("error: ") and "Traceback" not in no_client_cert.stderr
