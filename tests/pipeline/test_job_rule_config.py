"""`--rule-config KEY=VALUE` (repeatable) on `pipeline decode`: parsed into a dict, and a
malformed item refused without echoing it (it may be a secret)."""
from __future__ import annotations

import argparse

import pytest

from app.pipeline.job import parse_args, rule_config_argument

BASE = ["decode", "--registry", "http://127.0.0.1:1", "--input", "in", "--subject", "s", "--output", "out"]


def test_items_are_parsed_into_a_dict_and_default_to_empty():
    args = parse_args([*BASE, "--rule-config", "secret=a=b", "--rule-config", "access.key.id=AK"])
    assert args.rule_config == {"secret": "a=b", "access.key.id": "AK"}
    assert parse_args(BASE).rule_config == {}


def test_a_malformed_item_is_refused_without_echoing_it(capsys):
    with pytest.raises(SystemExit):
        parse_args([*BASE, "--rule-config", "my-secret-value"])
    err = capsys.readouterr().err
    assert "--rule-config" in err and "KEY=VALUE" in err and "my-secret-value" not in err


def test_the_argument_adds_to_any_command():
    command = argparse.ArgumentParser()
    rule_config_argument(command)
    assert command.parse_args(["--rule-config", "k=v"]).rule_config == {"k": "v"}
