"""The process-wide cache of compiled page templates (app/web/template_code.py): a second app
renders from the first one's compiled code, and a template whose source changed is compiled
again instead of rendering the old code."""
from __future__ import annotations

from jinja2 import DictLoader, Environment

from app.web.template_code import ProcessTemplateCode


class CountingEnvironment(Environment):
    compiled = 0

    def compile(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        CountingEnvironment.compiled += 1
        return super().compile(*args, **kwargs)


def environment(cache: ProcessTemplateCode, source: str) -> CountingEnvironment:
    return CountingEnvironment(loader=DictLoader({"page.html": source}), bytecode_cache=cache)


def test_a_second_environment_renders_from_the_first_ones_compiled_code() -> None:
    cache = ProcessTemplateCode()
    CountingEnvironment.compiled = 0
    first = environment(cache, "<p>{{ name }}</p>").get_template("page.html").render(name="a")
    second = environment(cache, "<p>{{ name }}</p>").get_template("page.html").render(name="b")
    assert (first, second, CountingEnvironment.compiled) == ("<p>a</p>", "<p>b</p>", 1)


def test_a_template_whose_source_changed_is_compiled_again() -> None:
    cache = ProcessTemplateCode()
    CountingEnvironment.compiled = 0
    environment(cache, "<p>old {{ name }}</p>").get_template("page.html").render(name="a")
    changed = environment(cache, "<p>new {{ name }}</p>").get_template("page.html").render(name="a")
    assert (changed, CountingEnvironment.compiled) == ("<p>new a</p>", 2)


def test_every_app_shares_the_process_cache(app) -> None:
    from app.web.template_code import TEMPLATE_CODE

    assert app.jinja_env.bytecode_cache is TEMPLATE_CODE
