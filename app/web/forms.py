"""The schema form shared by the check page, `/ui/new` and the register buttons: what the user
entered, kept as entered so a refused form comes back exactly as it was."""
from __future__ import annotations

from dataclasses import dataclass, field

from flask import request

from app.core.storable_text import problem
from app.core.types import SchemaRequest
from app.formats.base import DEFAULT_SCHEMA_TYPE
from app.web.errors import BadParameter

MAX_REFERENCES = 50


@dataclass
class SchemaForm:
    schema: str = ""
    schema_type: str = DEFAULT_SCHEMA_TYPE
    references: list[tuple[str, str, str]] = field(default_factory=list)  # name, subject, version as typed
    target: str = "registration"  # or a version number
    subject: str = ""

    def request(self) -> SchemaRequest:
        refs = []
        for name, subject, version in self.references:
            try:
                number = int(version)
            except ValueError:
                raise BadParameter("reference version", "must be a number") from None
            refs.append({"name": name, "subject": subject, "version": number})
        return SchemaRequest(schema=self.schema, schema_type=self.schema_type, references=refs)

    def reference_rows(self) -> list[tuple[str, str, str]]:
        """The rows shown: those entered, and one empty row to add another."""
        return [*self.references, ("", "", "")]


def read_form() -> SchemaForm:
    """The POSTed schema form; an uploaded file replaces the text area when one was chosen."""
    text = request.form.get("schema", "")
    upload = request.files.get("schema_file")
    if upload is not None and upload.filename:
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            raise BadParameter("schema_file", "must be UTF-8 text") from None
        found = problem(text)  # the form's fields were checked before the page ran (protection.py)
        if found is not None:
            raise BadParameter("schema_file", found)
    rows = zip(request.form.getlist("ref_name"), request.form.getlist("ref_subject"),
               request.form.getlist("ref_version"))
    references = [(n.strip(), s.strip(), v.strip()) for n, s, v in rows if n.strip() or s.strip() or v.strip()]
    if len(references) > MAX_REFERENCES:
        raise BadParameter("references", f"may name at most {MAX_REFERENCES} schemas")
    return SchemaForm(
        schema=text,
        schema_type=request.form.get("schemaType", DEFAULT_SCHEMA_TYPE) or DEFAULT_SCHEMA_TYPE,
        references=references,
        target=request.form.get("target", "registration") or "registration",
        subject=request.form.get("subject", ""),
    )
