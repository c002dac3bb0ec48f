"""Sign-in with failed attempts counted per account and per address.

After ``LOGIN_MAX_FAILURES`` wrong passwords for one username, or
``LOGIN_MAX_FAILURES_PER_ADDRESS`` from one client address, sign-in for that
account (or from that address) is refused for ``LOGIN_LOCKOUT_S`` seconds,
even with the right password: the page answers 429 and says so. The counts
live in the shared cache (``CACHE_URL``), so every web process sees them;
``python manage.py login_unlock`` lifts a lock at once. A cache that cannot
be reached fails open (``evalsite.cachesafe``): sign-in works uncounted.

The client address is ``REMOTE_ADDR``; behind a reverse proxy,
``LOGIN_CLIENT_ADDRESS_HEADER`` names the header the proxy sets (the last
address of ``X-Forwarded-For`` is the one the proxy saw).
"""

from __future__ import annotations

import hashlib
import logging
import math
from typing import Any

from django.conf import settings
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from evalsite.cachesafe import cache_errors, cache_failed_open

logger = logging.getLogger(__name__)

LOCKED_MESSAGE = (
    "Too many failed sign-ins for this {what}. Try again in {minutes} minutes, "
    "or ask an administrator to lift the lock."
)


def client_address(request: HttpRequest) -> str:
    header = settings.LOGIN_CLIENT_ADDRESS_HEADER
    if header:
        meta_name = "HTTP_" + header.upper().replace("-", "_")
        forwarded = request.META.get(meta_name, "")
        last = forwarded.split(",")[-1].strip()
        if last:
            return last[:64]
    return str(request.META.get("REMOTE_ADDR", ""))[:64]


def _user_key(username: str) -> str:
    digest = hashlib.sha256(username.strip().casefold().encode()).hexdigest()
    return f"login_failures:user:{digest[:32]}"


def _address_key(address: str) -> str:
    return f"login_failures:address:{address}"


def _keys(username: str, address: str) -> list[tuple[str, str, int]]:
    """``(what, cache key, limit)`` for the account and the address."""
    keys = [("address", _address_key(address), settings.LOGIN_MAX_FAILURES_PER_ADDRESS)]
    if username:
        keys.insert(0, ("account", _user_key(username), settings.LOGIN_MAX_FAILURES))
    return keys


def locked_for(username: str, address: str) -> str | None:
    """``"account"`` or ``"address"`` when sign-in is locked, else None."""
    keys = _keys(username, address)
    counts = cache.get_many([key for _, key, _ in keys])
    for what, key, limit in keys:
        if int(counts.get(key, 0)) >= limit:
            return what
    return None


def record_failure(username: str, address: str) -> None:
    """Count one failed sign-in for the account and the address; the count
    expires ``LOGIN_LOCKOUT_S`` after the first failure."""
    for what, key, limit in _keys(username, address):
        cache.add(key, 0, timeout=settings.LOGIN_LOCKOUT_S)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=settings.LOGIN_LOCKOUT_S)
            count = 1
        if count == limit:
            logger.warning("[Auth] login_locked by=%s address=%s", what, address)


def unlock(*, username: str = "", address: str = "") -> int:
    """Lift the lock of an account and/or an address; returns how many
    counters were cleared."""
    keys = [_user_key(username)] if username else []
    if address:
        keys.append(_address_key(address))
    found = cache.get_many(keys)
    cache.delete_many(keys)
    return len(found)


class ThrottledLoginView(LoginView):
    """Django's login page, refusing locked accounts and addresses."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = str(request.POST.get("username", ""))[:150]
        address = client_address(request)
        try:
            locked = locked_for(username, address)
        except cache_errors() as exc:
            cache_failed_open(what="login_throttle", exc=exc)
            return super().post(request, *args, **kwargs)
        if locked is not None:
            logger.warning("[Auth] login_refused reason=locked by=%s", locked)
            minutes = math.ceil(settings.LOGIN_LOCKOUT_S / 60)
            context = self.get_context_data(
                locked_message=LOCKED_MESSAGE.format(what=locked, minutes=minutes)
            )
            return self.render_to_response(context, status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        self._count(failed=False)
        return response

    def form_invalid(self, form: Any) -> HttpResponse:
        self._count(failed=True)
        return super().form_invalid(form)

    def _count(self, *, failed: bool) -> None:
        username = str(self.request.POST.get("username", ""))[:150]
        try:
            if failed:
                record_failure(username, client_address(self.request))
            else:
                unlock(username=username)
        except cache_errors() as exc:
            cache_failed_open(what="login_throttle", exc=exc)
