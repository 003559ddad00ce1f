"""Who is at fault when a rule fails in a decode: a rule that refuses the record (the record's
fault: routed or stopping the job naming it), or a KMS, registry or library the job cannot use
(no record's fault: the job fails in both modes, naming it). No Spark needed."""
from __future__ import annotations

from app.client.errors import RegistryUnavailable, RuleFailed, RulesUnavailable
from app.client.rules.executors import ConditionFailed, RuleError
from app.pipeline.rule_decoder import RuleRecordDecoder, job_failure


class EndpointConnectionError(Exception):
    """botocore's name for a KMS endpoint that did not answer (botocore need not be installed)."""


def failed(cause: BaseException, *, suppress: bool = False) -> RuleFailed:
    """A RuleFailed as the client raises it over an executor's failure; `suppress`: the driver
    re-raised its library's error `from None`, as the aws-kms driver does."""
    try:
        try:
            raise cause
        except BaseException as exc:
            if suppress:
                raise RuleError(f"AWS KMS refused to unwrap a DEK: {exc}") from None
            raise RuleError(str(exc)) from exc
    except RuleError as error:
        try:
            raise RuleFailed("READ rule 'encrypt-pii' (ENCRYPT) of s version 1 failed", rule="encrypt-pii",
                             subject="s", version=1, mode="READ") from error
        except RuleFailed as exc:
            return exc


def test_a_condition_that_refuses_the_record_is_the_records_fault():
    assert job_failure(failed(ConditionFailed("expression is false: message.age >= 18"))) is None


def test_an_unreachable_kms_fails_the_job_naming_it_and_the_rule_even_behind_from_none():
    found = job_failure(failed(EndpointConnectionError("Could not connect to the endpoint URL"), suppress=True))
    assert found is not None and "the KMS cannot be reached" in str(found) and "'encrypt-pii'" in str(found)


def test_an_unreachable_dek_registry_fails_the_job():
    found = job_failure(failed(RegistryUnavailable("no registry answered at http://127.0.0.1:1")))
    assert found is not None and "the registry cannot be reached" in str(found)


def test_a_missing_library_or_secret_fails_the_job_with_the_clients_line():
    line = "CEL rules need cel-python (celpy is not installed): pip install 'sqlregistry[rules]'"
    found = job_failure(RulesUnavailable(line))
    assert found is not None and str(found) == line


def test_the_records_path_routes_a_refused_record_and_raises_for_an_unreachable_kms():
    refused = failed(ConditionFailed("false"))
    unreachable = failed(EndpointConnectionError("down"), suppress=True)

    def deserialize(data: bytes) -> object:
        if data == b"refused":
            raise refused
        if data == b"unreachable":
            raise unreachable
        return data.decode()

    decoder = RuleRecordDecoder(deserialize, str.upper)
    told: list[tuple[int, BaseException]] = []
    assert decoder.decode_all([b"ok", None, b"refused"], lambda row, exc: told.append((row, exc))) == ["OK", None, None]
    assert told == [(2, refused)]
    try:
        decoder.decode_all([b"unreachable"], lambda row, exc: told.append((row, exc)))
    except RuntimeError as exc:
        assert type(exc).__name__ == "RuleJobError" and "KMS" in str(exc)
    else:
        raise AssertionError("an unreachable KMS must fail the job")
