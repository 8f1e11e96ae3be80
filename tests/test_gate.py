from __future__ import annotations

import threading
from pathlib import Path

import pytest

from forge.errors import TokenExpired, TokenMismatch, TokenSpent, TokenUnknown
from forge.gate import Gate
from forge.tokenstore import MemoryTokenStore, SqliteTokenStore, TokenStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> TokenStore:
    return MemoryTokenStore() if request.param == "memory" else SqliteTokenStore(tmp_path / "tokens.sqlite")


def test_a_token_confirms_its_own_request_once(store: TokenStore) -> None:
    gate = Gate(store)
    token = gate.issue(b"request-1")
    gate.redeem(token, b"request-1")
    with pytest.raises(TokenSpent):
        gate.redeem(token, b"request-1")


def test_a_token_for_another_request_is_refused_and_stays_valid_for_its_own(store: TokenStore) -> None:
    gate = Gate(store)
    token = gate.issue(b"request-1")
    with pytest.raises(TokenMismatch):
        gate.redeem(token, b"request-2")
    gate.redeem(token, b"request-1")


def test_an_expired_token_is_refused(store: TokenStore) -> None:
    clock = Clock()
    gate = Gate(store, lifetime=300, clock=clock)
    token = gate.issue(b"r")
    clock.now += 300
    with pytest.raises(TokenExpired):
        gate.redeem(token, b"r")


def test_a_token_just_inside_its_lifetime_is_accepted(store: TokenStore) -> None:
    clock = Clock()
    gate = Gate(store, lifetime=300, clock=clock)
    token = gate.issue(b"r")
    clock.now += 299.9
    gate.redeem(token, b"r")


@pytest.mark.parametrize("token", ["", "nodot", "abc.def", ".", "x" * 500])
def test_tokens_never_issued_are_unknown(store: TokenStore, token: str) -> None:
    with pytest.raises(TokenUnknown):
        Gate(store).redeem(token, b"r")


def test_a_token_with_a_forged_tag_is_unknown(store: TokenStore) -> None:
    gate = Gate(store)
    token_id, _, tag = gate.issue(b"r").partition(".")
    with pytest.raises(TokenUnknown):
        gate.redeem(f"{token_id}.{tag[::-1]}", b"r")


def test_a_token_from_another_server_is_unknown() -> None:
    token = Gate(MemoryTokenStore()).issue(b"r")
    with pytest.raises(TokenUnknown):
        Gate(MemoryTokenStore()).redeem(token, b"r")


def test_concurrent_confirmations_of_one_token_succeed_at_most_once(store: TokenStore) -> None:
    gate = Gate(store)
    token = gate.issue(b"r")
    outcomes: list[str] = []
    barrier = threading.Barrier(16)

    def confirm() -> None:
        barrier.wait()
        try:
            gate.redeem(token, b"r")
            outcomes.append("sent")
        except TokenSpent:
            outcomes.append("refused")

    threads = [threading.Thread(target=confirm) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused"] * 15 + ["sent"]


def test_sqlite_tokens_are_shared_between_processes_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "state" / "tokens.sqlite"
    token = Gate(SqliteTokenStore(path)).issue(b"r")
    Gate(SqliteTokenStore(path)).redeem(token, b"r")
    with pytest.raises(TokenSpent):
        Gate(SqliteTokenStore(path)).redeem(token, b"r")
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_memory_store_forgets_tokens_long_after_they_expire() -> None:
    clock = Clock()
    store = MemoryTokenStore()
    gate = Gate(store, lifetime=1, clock=clock)
    for _ in range(5000):
        gate.issue(b"r")
        clock.now += 10
    assert len(store) < 2100
