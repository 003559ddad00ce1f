"""An exporter's subject filter, renaming, target contexts, masking and the target endpoint
it builds from Confluent's config keys, without a server."""
from __future__ import annotations

import base64

from app.core.exporters.records import MASK, ExporterDefinition, masked, parse_config
from app.transfer.dump import SchemaRecord, VersionRecord
from app.transfer.export import SubjectHistory
from app.transfer.exporting import target_endpoint, translate


def test_patterns_choose_default_context_subjects_unless_they_name_a_context() -> None:
    definition = ExporterDefinition("e", ("orders-*", ":.staging:*"))
    assert definition.includes("orders-value")
    assert not definition.includes("payments-value")
    assert not definition.includes(":.other:orders-value")
    assert definition.includes(":.staging:anything")
    assert ExporterDefinition("e", (":*:*",)).includes(":.other:x")  # every context, as `:*:` in listings
    assert ExporterDefinition("e", ("*",)).includes("a*b")


def test_each_context_type_puts_the_renamed_subject_in_its_context() -> None:
    rename = "${subject}-dr"
    assert ExporterDefinition("e", context_type="NONE", subject_rename_format=rename).target_subject(
        ":.src:orders", ".auto") == ":.src:orders-dr"
    assert ExporterDefinition("e", context_type="CUSTOM", context=".dr").target_subject("orders", ".auto") == \
        ":.dr:orders"
    assert ExporterDefinition("e", context_type="AUTO").target_subject("orders", ".auto") == ":.auto:orders"


def test_references_are_renamed_like_the_subjects_they_name() -> None:
    definition = ExporterDefinition("e", context_type="CUSTOM", context=".dr", subject_rename_format="x-${subject}")
    content = SchemaRecord(".", 7, "AVRO", '"string"', references=(("Ref", "common", 2),))
    history = SubjectHistory("orders", ".", [(VersionRecord("orders", ".", 1, 7, False), content)])
    dump = translate([history], definition, ".auto")
    assert dump.versions == [VersionRecord(":.dr:x-orders", ".dr", 1, 7, False)]
    assert dump.schemas[(".dr", 7)].references == (("Ref", "x-common", 2),)


def test_secrets_are_masked_and_a_masked_value_sent_back_keeps_the_stored_one() -> None:
    stored = parse_config({"schema.registry.url": "https://u:pw@target:8081", "basic.auth.user.info": "a:b",
                           "bearer.auth.token": "t0k"})
    shown = masked(stored)
    assert shown["basic.auth.user.info"] == shown["bearer.auth.token"] == MASK
    assert "pw" not in shown["schema.registry.url"]
    assert parse_config(shown, stored) == stored


def test_the_target_endpoint_takes_credentials_from_user_info_the_url_or_a_token() -> None:
    def basic(user_pass: str) -> str:
        return "Basic " + base64.b64encode(user_pass.encode()).decode()

    from_info = target_endpoint({"schema.registry.url": "http://t:1/, http://u:2",
                                 "basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "al:pw"})
    assert (from_info.url, from_info.authorization) == ("http://t:1", basic("al:pw"))
    from_url = target_endpoint({"schema.registry.url": "https://al:p%40ss@t:1", "basic.auth.credentials.source": "URL",
                                "schema.registry.ssl.ca.location": "/ca.pem"})
    assert (from_url.url, from_url.authorization, from_url.ca) == ("https://t:1", basic("al:p@ss"), "/ca.pem")
    bearer = target_endpoint({"schema.registry.url": "http://t", "bearer.auth.token": "tok"})
    assert bearer.authorization == "Bearer tok"
