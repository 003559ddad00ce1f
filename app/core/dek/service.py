"""Every DEK registry operation, with Confluent's rules (its `DekRegistry`) for what exists,
what conflicts and what a delete may do.

Each method takes the caller (`principal`) and, for writes, the request's `origin`, as the
registry's other services do: the guard asks the service's authorizer, every committed change
writes its audit row in its own transaction, and a KMS is asked before that transaction
opens (a remote KMS must not hold the database's write lock).

Authorization: a KEK is held by the callers granted it (`Authorizer.check_kek`): READ to see
or test it, ADMIN to create, change, delete or undelete it; KEK listings show only the KEKs
the caller may read, of contexts it can see (as `GET /contexts` shows them). A DEK needs the
same action on its subject and on its KEK (READ to read it, WRITE to create one, DELETE to
delete or undelete it, ADMIN for a permanent delete): its key material is only as private as
the KEK that wraps it, so writing a subject is not enough to make the server unwrap a key.
A KEK lives in a context (`?context=` on the KEK routes, as Confluent's clients send it); a
DEK's KEK is looked up in its subject's context.

Key material a client sends is checked before anything is stored: its form and size always,
and under a shared KEK that it unwraps and is no other DEK's (the reply then carries the raw
key, to a caller holding WRITE on the KEK); a refusal is 42271 naming `encryptedKeyMaterial`.
A wrapped key copied from another DEK would otherwise unwrap under any KEK of the same KMS
key, and under the local KMS every KEK has the same one.

Testing a shared KEK (`test_kek`, and `test_sharing` on create and update) wraps a throwaway
DEK through the KMS, as Confluent's `testKek` does, so that a KEK the server cannot use is
found when it is set up rather than by the first producer.
"""
from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import TypeVar

from app.core import audit as actions
from app.core.access import ANONYMOUS, OPEN, Action, Guard, Principal
from app.core.audit import NO_AUDIT, Audit
from app.core.dek.errors import (
    DekGenerationFailed,
    InvalidKey,
    KeyAlreadyExists,
    KeyNotFound,
    KeyNotSoftDeleted,
    KeyReferenceExists,
    KeySoftDeleted,
)
from app.core.dek.key_material import new_key_material
from app.core.dek.kms import KmsDrivers, KmsError
from app.core.dek.records import (
    CONTEXT_MAX_LENGTH,
    DEFAULT_ALGORITHM,
    DOC_MAX_LENGTH,
    KMS_KEY_ID_MAX_LENGTH,
    KMS_PROP_KEY_MAX_LENGTH,
    KMS_PROP_VALUE_MAX_LENGTH,
    KMS_PROPS_MAX_COUNT,
    KMS_TYPE_MAX_LENGTH,
    MIN_VERSION,
    SUBJECT_MAX_LENGTH,
    Dek,
    DekKey,
    DekReply,
    DekRequest,
    Kek,
    KekChanges,
    KekRequest,
    algorithm_of,
    check_dek_subject,
    check_encrypted_key_material,
    check_kek_name,
    check_text,
)
from app.core.errors import StoreError, WriteConflict
from app.core.store.audit import NO_ORIGIN, Origin
from app.core.store.protocol import Storage, Store
from app.core.subjects import page, parse_version
from app.core.types import DEFAULT_CONTEXT, WILDCARD_CONTEXT, QualifiedSubject
from app.core.browse.visible_contexts import named_contexts

_T = TypeVar("_T")
_EMPTY_AAD = b""
_WRITE_ATTEMPTS = 3
_INT32_MAX = 2**31 - 1
# Confluent stores the cloud KMS types under one spelling whatever the client wrote.
_KMS_TYPE_PREFIXES = (("aws", "aws-kms"), ("azure", "azure-kms"), ("gcp", "gcp-kms"))
# The subject Confluent names in the message when a KEK's test cannot wrap its throwaway DEK.
_TEST_SUBJECT = "__TEST"


class _TestOutdated(Exception):
    """The KEK changed between its test (or the check of a DEK's key material under it) and
    the write that was to follow."""


def normalized_kms_type(kms_type: str) -> str:
    low = kms_type.lower()
    return next((name for prefix, name in _KMS_TYPE_PREFIXES if low.startswith(prefix)), kms_type)


class DekRegistryService:
    def __init__(
        self, storage: Storage, drivers: KmsDrivers, *,
        guard: Callable[[Principal], Guard] = lambda principal: OPEN,
        audit: Callable[[Principal, Origin], Audit] = lambda principal, origin: NO_AUDIT,
    ):
        self.storage = storage
        self.drivers = drivers
        self._guard = guard
        self._audit = audit

    # ------------------------------------------------------------------ KEKs
    def kek_names(self, context: str, deleted: bool, subject_prefixes: Sequence[str] = (), offset: int = 0,
                  limit: int = -1, *, principal: Principal = ANONYMOUS) -> list[str]:
        """The KEKs of `context` the caller may read; none in a context it cannot see.
        `subject_prefixes` (Confluent's repeatable `subjectPrefix`) keeps the KEKs holding a DEK
        of a subject that starts with one of them, named as in the context or qualified; the
        page (`offset`, `limit`) is taken last, of what the caller may see."""
        _check_context(context)
        prefixes = _qualified_prefixes(context, subject_prefixes)
        guard = self._guard(principal)
        with self.storage.read() as store:
            names = store.kek_names(context, deleted)
            if prefixes:
                holding = set(store.kek_names_holding(context, prefixes, deleted))
                names = [name for name in names if name in holding]
            names = guard.filter_keks(context, names)
            # What a context's visibility costs (a look at its subjects) only when it matters.
            return page(names, offset, limit) if names and _visible(store, guard, context) else []

    def get_kek(self, name: str, context: str, deleted: bool, *, principal: Principal = ANONYMOUS) -> Kek:
        """READ on the KEK (a 403 before any lookup); in a context the caller cannot see, the
        KEK is not found, as the listing leaves it out."""
        check_kek_name(name)
        _check_context(context)
        guard = self._guard(principal)
        guard.check_kek(Action.READ, context, name)
        with self.storage.read() as store:
            if not _visible(store, guard, context):
                raise KeyNotFound.named(name)
            return _kek(store, context, name, deleted)

    def create_kek(self, request: KekRequest, context: str, *, test_sharing: bool = False,
                   principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> Kek:
        """`test_sharing`: a shared KEK is tested first (see `test_kek`); a failure writes nothing."""
        name = check_kek_name(request.name)
        if not request.kms_key_id:
            raise InvalidKey("kmsKeyId")
        if request.kms_type is None:
            raise InvalidKey("kmsType")
        check_text(request.kms_type, "kmsType", KMS_TYPE_MAX_LENGTH)
        check_text(request.kms_key_id, "kmsKeyId", KMS_KEY_ID_MAX_LENGTH)
        _check_doc_and_props(request.doc, request.kms_props)
        _check_context(context)
        self._guard(principal).check_kek(Action.ADMIN, context, name)
        new = Kek(context, name, normalized_kms_type(request.kms_type), request.kms_key_id,
                  dict(sorted((request.kms_props or {}).items())), request.doc, request.shared, deleted=request.deleted)
        if test_sharing and new.shared:
            self._test_sharing(new)
        self._require_driver(new)

        def write(store: Store) -> Kek:
            old = store.kek(context, name)
            # Creating a deleted KEK again, with the same fields, undeletes it.
            if old is not None and (old.deleted == new.deleted or not old.equivalent(new)):
                raise KeyAlreadyExists.named(name)
            stored = store.put_kek(new)
            self._record_kek(store, principal, origin, actions.CREATE_KEK, stored)
            return stored

        return self._write(write)

    def update_kek(self, name: str, changes: KekChanges, context: str, *, test_sharing: bool = False,
                   principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> Kek:
        """`test_sharing`: the KEK as changed, when shared, is tested first (see `test_kek`) and
        written only if what the KMS reads of it is still what was tested (else tested again:
        another writer changed it meanwhile); a failure writes nothing."""
        check_kek_name(name)
        _check_context(context)
        _check_doc_and_props(changes.doc, changes.kms_props)
        self._guard(principal).check_kek(Action.ADMIN, context, name)

        def write(store: Store, tested: Kek | None) -> Kek:
            old = _kek(store, context, name, deleted=False)
            new = _changed(old, changes)
            if new.equivalent(old):
                return old
            if test_sharing and new.shared and (tested is None or not _same_kms_key(new, tested)):
                raise _TestOutdated
            self._require_driver(new)
            stored = store.put_kek(new)
            self._record_kek(store, principal, origin, actions.UPDATE_KEK, stored)
            return stored

        for _ in range(_WRITE_ATTEMPTS):
            tested = self._tested_change(name, changes, context) if test_sharing else None
            try:
                return self._write(partial(write, tested=tested))
            except _TestOutdated:
                continue
        raise StoreError("Could not write the key: it changed each time it was tested")

    def test_kek(self, name: str, context: str, *, principal: Principal = ANONYMOUS) -> Kek:
        """Confluent's `POST /keks/{name}/test`. It changes nothing, so it needs what reading the
        KEK needs (READ on it) and writes no audit row."""
        kek = self.get_kek(name, context, deleted=False, principal=principal)
        self._test_sharing(kek)
        return kek

    def delete_kek(self, name: str, context: str, permanent: bool, *, principal: Principal = ANONYMOUS,
                   origin: Origin = NO_ORIGIN) -> None:
        """A soft delete refuses while live DEKs use the KEK, a permanent one while any do."""
        self._admin_kek(name, context, principal)

        def write(store: Store) -> None:
            old = _kek(store, context, name, deleted=True)
            if store.count_deks(context, name, deleted=permanent):
                raise KeyReferenceExists.named(name)
            if permanent:
                if not old.deleted:
                    raise KeyNotSoftDeleted.named(name)
                store.remove_kek(context, name)
            elif not old.deleted:
                store.put_kek(replace(old, deleted=True))
            else:
                return
            self._record_kek(store, principal, origin, actions.DELETE_KEK, old, permanent=permanent)

        self._write(write)

    def undelete_kek(self, name: str, context: str, *, principal: Principal = ANONYMOUS,
                     origin: Origin = NO_ORIGIN) -> None:
        self._admin_kek(name, context, principal)

        def write(store: Store) -> None:
            old = _kek(store, context, name, deleted=True)
            if old.deleted:
                stored = store.put_kek(replace(old, deleted=False))
                self._record_kek(store, principal, origin, actions.UNDELETE_KEK, stored)

        self._write(write)

    # ------------------------------------------------------------------ DEKs
    def dek_subjects(self, kek_name: str, context: str, deleted: bool, offset: int = 0, limit: int = -1, *,
                     principal: Principal = ANONYMOUS) -> list[str]:
        """The subjects with DEKs under the KEK that the caller may read (READ on the KEK),
        paged after that filter."""
        check_kek_name(kek_name)
        _check_context(context)
        self._guard(principal).check_kek(Action.READ, context, kek_name)
        with self.storage.read() as store:
            _kek(store, context, kek_name, deleted)
            subjects = store.dek_subjects(context, kek_name, deleted)
        guard = self._guard(principal)
        return page(subjects if guard.unrestricted else guard.filter(subjects), offset, limit)

    def dek_versions(self, kek_name: str, subject: str, algorithm: str | None, deleted: bool, offset: int = 0,
                     limit: int = -1, *, principal: Principal = ANONYMOUS) -> list[int]:
        key = self._key(kek_name, subject, algorithm)
        self._check_dek(principal, Action.READ, key)
        with self.storage.read() as store:
            _kek(store, key.context, kek_name, deleted)
            return page([dek.version for dek in store.deks(key, deleted)], offset, limit)

    def get_dek(self, kek_name: str, subject: str, version: str | None, algorithm: str | None, deleted: bool, *,
                principal: Principal = ANONYMOUS) -> DekReply:
        """`version` None is the first version (Confluent's `GET .../deks/{subject}`);
        `latest` and -1 the newest."""
        key = self._key(kek_name, subject, algorithm)
        number = MIN_VERSION if version is None else parse_version(version)
        self._check_dek(principal, Action.READ, key)
        with self.storage.read() as store:
            kek = _kek(store, key.context, kek_name, deleted)
            dek = _dek(store, key, number, deleted)
        return self._reply(kek, dek)

    def create_dek(self, kek_name: str, request: DekRequest, *, rewrap: bool = False,
                   principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> DekReply:
        """Key material sent is checked before anything is stored (see the module's docstring);
        the KEK is read before the KMS is asked and again in the write, which starts over if
        what the KMS reads of it changed meanwhile.

        `rewrap` (Confluent's `?rewrap=true`) lets the version exist already: under a shared
        KEK, with no key material sent, its key is unwrapped and wrapped again through the KMS
        (the same raw key, so data written under it still decrypts: what a KEK's KMS key
        rotation asks for); under a KEK that is not shared, the key material sent replaces the
        stored one. Material sent for an existing version under a shared KEK is still 40971,
        as Confluent answers."""
        key = self._key(kek_name, request.subject, request.algorithm)
        version = MIN_VERSION if request.version is None else request.version
        if not MIN_VERSION <= version <= _INT32_MAX:
            raise InvalidKey("version")
        sent = check_encrypted_key_material(request.encrypted_key_material)
        self._check_dek(principal, Action.WRITE, key)
        for _ in range(_WRITE_ATTEMPTS):
            with self.storage.read() as store:
                checked = _kek(store, key.context, kek_name, request.deleted)
                if checked.shared and sent is not None and store.material_elsewhere(
                        request.encrypted_key_material, key, version):
                    # Another DEK's wrapped key, replayed to have the server unwrap it here: under
                    # the local KMS every KEK shares one key, so the unwrap would succeed.
                    raise InvalidKey("encryptedKeyMaterial: it is another key's material")
                old = _version(store.deks(key, deleted=True), version) if rewrap else None
            if old is not None and checked.shared and sent is not None:
                raise KeyAlreadyExists.named(key.subject)
            if old is not None and checked.shared:
                raw = self._unwrap(checked, old)
                material = base64.b64encode(self._wrap(checked, raw, key.subject)).decode("ascii")
            else:
                material, raw = self._material(checked, key, request.encrypted_key_material, sent)
            new = Dek(key, version, material, deleted=request.deleted)
            try:
                stored = self._write(partial(self._put_dek, checked=checked, new=new, rewrapped=old,
                                             principal=principal, origin=origin))
            except _TestOutdated:
                continue
            return DekReply(stored, None if raw is None else base64.b64encode(raw).decode("ascii"))
        raise StoreError("Could not write the key: its KEK changed each time the key was checked")

    def _material(self, kek: Kek, key: DekKey, text: str | None, sent: bytes | None) -> tuple[str, bytes | None]:
        """The DEK's wrapped key material and, under a shared KEK, the raw key: a new one when
        none was sent; else the one sent, which must unwrap."""
        if text is None or sent is None:
            if not kek.shared:
                raise InvalidKey("encryptedKeyMaterial")
            raw = new_key_material(key.algorithm)
            return base64.b64encode(self._wrap(kek, raw, key.subject)).decode("ascii"), raw
        if not kek.shared:
            return text, None
        try:
            return text, self.drivers.aead(kek).decrypt(sent, _EMPTY_AAD)
        except KmsError:
            raise InvalidKey(f"encryptedKeyMaterial: it does not unwrap with the shared key '{kek.name}'") from None

    def _put_dek(self, store: Store, checked: Kek, new: Dek, rewrapped: Dek | None, principal: Principal,
                 origin: Origin) -> Dek:
        """`rewrapped`: the stored version a rewrap read (None: not a rewrap, or the version was
        absent then); it must still be there as read, else the rewrap starts over."""
        kek = _kek(store, new.key.context, new.key.kek_name, new.deleted)
        if kek.shared != checked.shared or not _same_kms_key(kek, checked):
            raise _TestOutdated
        old = _version(store.deks(new.key, deleted=True), new.version)
        if rewrapped is not None:
            if old is None or old.encrypted_key_material != rewrapped.encrypted_key_material:
                raise _TestOutdated
            action = actions.REWRAP_DEK
        elif old is not None and (old.deleted == new.deleted
                                  or old.encrypted_key_material != new.encrypted_key_material):
            # Creating a deleted DEK again, with the same key material, undeletes it.
            raise KeyAlreadyExists.named(new.key.subject)
        else:
            action = actions.CREATE_DEK
        stored = store.put_dek(new)
        self._record_dek(store, principal, origin, action, stored)
        return stored

    def delete_dek(self, kek_name: str, subject: str, version: str | None, algorithm: str | None,
                   permanent: bool, *, principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> None:
        """Every version of the DEK (`version` None) or one; a permanent delete only after a soft one."""
        key = self._key(kek_name, subject, algorithm)
        number = None if version is None else parse_version(version)
        self._check_dek(principal, Action.ADMIN if permanent else Action.DELETE, key)

        def write(store: Store) -> None:
            _kek(store, key.context, kek_name, deleted=True)
            chosen = [_dek(store, key, number, deleted=True)] if version is not None else _all(store, key)
            if permanent:
                if any(not dek.deleted for dek in chosen):
                    raise KeyNotSoftDeleted.named(key.subject)
                store.remove_deks(key, [dek.version for dek in chosen])
            else:
                chosen = [dek for dek in chosen if not dek.deleted]
                for dek in chosen:
                    store.put_dek(replace(dek, deleted=True))
            for dek in chosen:
                self._record_dek(store, principal, origin, actions.DELETE_DEK, dek, permanent=permanent)

        self._write(write)

    def undelete_dek(self, kek_name: str, subject: str, version: str | None, algorithm: str | None, *,
                     principal: Principal = ANONYMOUS, origin: Origin = NO_ORIGIN) -> None:
        key = self._key(kek_name, subject, algorithm)
        number = None if version is None else parse_version(version)
        self._check_dek(principal, Action.DELETE, key)

        def write(store: Store) -> None:
            kek = _kek(store, key.context, kek_name, deleted=True)
            if kek.deleted:
                raise KeySoftDeleted.named(kek_name)
            chosen = [_dek(store, key, number, deleted=True)] if version is not None else _all(store, key)
            for dek in chosen:
                if dek.deleted:
                    stored = store.put_dek(replace(dek, deleted=False))
                    self._record_dek(store, principal, origin, actions.UNDELETE_DEK, stored)

        self._write(write)

    # ------------------------------------------------------------------ helpers
    def _admin_kek(self, name: str, context: str, principal: Principal) -> None:
        """What deleting or undeleting a KEK asks first: a well-formed name and context, then
        ADMIN on the KEK."""
        check_kek_name(name)
        _check_context(context)
        self._guard(principal).check_kek(Action.ADMIN, context, name)

    def _check_dek(self, principal: Principal, action: Action, key: DekKey) -> None:
        """`action` on the DEK's subject, then on its KEK."""
        guard = self._guard(principal)
        guard.check(action, _scope(key).qualified())
        guard.check_kek(action, key.context, key.kek_name)

    def _write(self, step: Callable[[Store], _T]) -> _T:
        """`step` in one write transaction, again when a concurrent writer won a race (two
        producers creating the same DEK: the second then finds it and gets 40971, which the
        clients answer by reading it)."""
        for attempt in range(_WRITE_ATTEMPTS):
            try:
                with self.storage.write() as store:
                    return step(store)
            except WriteConflict:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise StoreError("Could not write the key: too much concurrent contention") from None
        raise AssertionError("unreachable")

    def _key(self, kek_name: str, subject: str | None, algorithm: str | None) -> DekKey:
        check_kek_name(kek_name)
        qs = QualifiedSubject.parse(check_dek_subject(subject))
        if qs.context == WILDCARD_CONTEXT or not qs.name or len(qs.context) > CONTEXT_MAX_LENGTH:
            raise InvalidKey("subject")
        return DekKey(qs.context, kek_name, qs.qualified(), algorithm_of(algorithm))

    def _require_driver(self, kek: Kek) -> None:
        """A shared KEK is only as good as the server's KMS for it: refused without one."""
        if kek.shared and not kek.deleted and not self.drivers.supports(kek.kms_type):
            raise InvalidKey(f"kmsType: this server has no KMS driver for '{kek.kms_type}', "
                             "which a shared key needs")

    def _test_sharing(self, kek: Kek) -> None:
        """A KEK that is not shared has nothing for the server to test (42271 naming `shared`);
        a shared one must wrap a new AES256_GCM DEK, which is then dropped. No driver for its
        type is a generation failure here (50070, as Confluent answers), not the 42271 of
        creating such a KEK without the test."""
        if not kek.shared:
            raise InvalidKey("shared")
        if not self.drivers.supports(kek.kms_type):
            raise DekGenerationFailed(f"Could not generate encrypted dek for {_TEST_SUBJECT}: "
                                      f"this server has no KMS driver for '{kek.kms_type}'")
        self._wrap(kek, new_key_material(DEFAULT_ALGORITHM), _TEST_SUBJECT)

    def _tested_change(self, name: str, changes: KekChanges, context: str) -> Kek | None:
        """The KEK as `changes` would leave it, tested when it would be shared (else None)."""
        with self.storage.read() as store:
            candidate = _changed(_kek(store, context, name, deleted=False), changes)
        if not candidate.shared:
            return None
        self._test_sharing(candidate)
        return candidate

    def _wrap(self, kek: Kek, raw: bytes, subject: str) -> bytes:
        try:
            return self.drivers.aead(kek).encrypt(raw, _EMPTY_AAD)
        except KmsError as exc:
            raise DekGenerationFailed(f"Could not generate encrypted dek for {subject}: {exc}") from None

    def _unwrap(self, kek: Kek, dek: Dek) -> bytes:
        try:
            return self.drivers.aead(kek).decrypt(base64.b64decode(dek.encrypted_key_material, validate=True),
                                                  _EMPTY_AAD)
        except (KmsError, binascii.Error) as exc:
            raise DekGenerationFailed(f"Could not generate raw dek for {dek.key.subject}: {exc}") from None

    def _reply(self, kek: Kek, dek: Dek) -> DekReply:
        """For a shared KEK the DEK comes unwrapped too, so the client needs no KMS."""
        if not kek.shared:
            return DekReply(dek)
        try:
            wrapped = base64.b64decode(dek.encrypted_key_material, validate=True)
            raw = self.drivers.aead(kek).decrypt(wrapped, _EMPTY_AAD)
        except (KmsError, binascii.Error) as exc:
            raise DekGenerationFailed(f"Could not generate raw dek for {dek.key.subject}: {exc}") from None
        return DekReply(dek, base64.b64encode(raw).decode("ascii"))

    def _record_kek(self, store: Store, principal: Principal, origin: Origin, action: str, kek: Kek,
                    **detail: object) -> None:
        self._audit(principal, origin).record(
            store, action, QualifiedSubject(kek.context, ""),
            detail={"kek": kek.name, "kmsType": kek.kms_type, "shared": kek.shared, **detail})

    def _record_dek(self, store: Store, principal: Principal, origin: Origin, action: str, dek: Dek,
                    **detail: object) -> None:
        """The row names the subject and version; never any key material."""
        self._audit(principal, origin).record(
            store, action, _scope(dek.key), version=dek.version,
            detail={"kek": dek.key.kek_name, "algorithm": dek.key.algorithm.value, **detail})


def _check_doc_and_props(doc: str | None, props: Mapping[str, str] | None) -> None:
    check_text(doc, "doc", DOC_MAX_LENGTH)
    if props is not None and len(props) > KMS_PROPS_MAX_COUNT:
        raise InvalidKey(f"kmsProps: more than {KMS_PROPS_MAX_COUNT} properties")
    for key, value in (props or {}).items():
        check_text(key, "kmsProps", KMS_PROP_KEY_MAX_LENGTH)
        check_text(value, "kmsProps", KMS_PROP_VALUE_MAX_LENGTH)


def _qualified_prefixes(context: str, prefixes: Sequence[str]) -> list[str]:
    """Each prefix as given (it may be qualified) and, in a named context, also qualified with
    it: a DEK's subject is stored qualified, and a client names it in its context."""
    for prefix in prefixes:
        check_text(prefix, "subjectPrefix", SUBJECT_MAX_LENGTH)
    if context == DEFAULT_CONTEXT:
        return list(prefixes)
    return [*prefixes, *(QualifiedSubject(context, prefix).qualified() for prefix in prefixes)]


def _visible(store: Store, guard: Guard, context: str) -> bool:
    """Whether `GET /contexts` shows `context` to the caller (the default context: always)."""
    return context == DEFAULT_CONTEXT or guard.unrestricted or context in named_contexts(store, guard)


def _changed(old: Kek, changes: KekChanges) -> Kek:
    return replace(
        old,
        kms_props=old.kms_props if changes.kms_props is None else dict(sorted(changes.kms_props.items())),
        doc=old.doc if changes.doc is None else changes.doc,
        shared=old.shared if changes.shared is None else changes.shared,
    )


def _same_kms_key(kek: Kek, other: Kek) -> bool:
    """What a KMS driver reads of a KEK."""
    return (kek.kms_type, kek.kms_key_id, dict(kek.kms_props)) == (other.kms_type, other.kms_key_id,
                                                                  dict(other.kms_props))


def _check_context(context: str) -> None:
    """`?context=` is any text a client sends: refused (42271) where no context could be named so."""
    check_text(context, "context", CONTEXT_MAX_LENGTH)


def _scope(key: DekKey) -> QualifiedSubject:
    return QualifiedSubject.parse(key.subject)


def _kek(store: Store, context: str, name: str, deleted: bool) -> Kek:
    kek = store.kek(context, name)
    if kek is None or (kek.deleted and not deleted):
        raise KeyNotFound.named(name)
    return kek


def _version(deks: list[Dek], number: int | None) -> Dek | None:
    """Version `number` among `deks` (oldest first); None: the newest."""
    if number is None:
        return deks[-1] if deks else None
    return next((dek for dek in deks if dek.version == number), None)


def _dek(store: Store, key: DekKey, number: int | None, deleted: bool) -> Dek:
    dek = _version(store.deks(key, deleted), number)
    if dek is None:
        raise KeyNotFound.named(key.subject)
    return dek


def _all(store: Store, key: DekKey) -> list[Dek]:
    deks = store.deks(key, deleted=True)
    if not deks:
        raise KeyNotFound.named(key.subject)
    return deks

