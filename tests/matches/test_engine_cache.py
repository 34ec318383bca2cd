"""The per-process engine cache: a state cached at an older version (the other ASGI processes
applied the later actions) catches up from the snapshot instead of replaying the match."""

from matchkit import full_match

from engine.match import Match as EngineMatch
from matches import store
from matches.models import Match
from matches.services import play as match_play


def play(match_id, players, count):
    for _ in range(count):
        match = Match.objects.get(pk=match_id)
        seat = match.to_move
        action = store.engine_of(match).legal_actions(seat)[-1].to_json()
        match_play.submit_action(
            match_id, action, seat=seat, user=players[seat], expected_version=match.version
        )


def test_an_older_cached_state_catches_up(club, players, scheduled):
    match = full_match(club, players)
    play(match.pk, players, 3)
    match.refresh_from_db()
    older = EngineMatch.from_json(match.snapshot)  # what another process holds at version 3
    play(match.pk, players, 5)
    match.refresh_from_db()
    assert match.version == 8
    store._engines.clear()
    store._engines.put(match.pk, 3, older)
    engine = store.engine_of(match)
    assert engine is older  # brought up to date, not replayed
    assert engine.state_json() == store.replay_events(match).state_json()
    assert store.snapshot_of(engine)["actions"] == match.snapshot["actions"]


def test_a_cached_state_of_another_history_is_replayed(club, players, scheduled):
    match = full_match(club, players)
    play(match.pk, players, 4)
    match.refresh_from_db()
    other = EngineMatch.new("bao2", "another seed")
    other.apply(other.legal_actions(other.to_move())[0])
    store._engines.clear()
    store._engines.put(match.pk, 1, other)
    engine = store.engine_of(match)
    assert engine is not other
    assert engine.state_json() == store.replay_events(match).state_json()


def test_a_state_is_cached_only_after_its_frames_are_built(club, players, scheduled):
    """Another thread may take a cached state and change it at once (an action sent without a
    version): so the broadcast and the hooks after a commit use it before it is cached."""
    match = full_match(club, players)
    seen = []

    def hook(match_id, version, engine):
        seen.append(store._engines.take(match_id))

    match_play.after_commit_hooks.append(hook)
    try:
        play(match.pk, players, 2)
    finally:
        match_play.after_commit_hooks.remove(hook)
    assert seen == [None, None]
    cached = store._engines.take(match.pk)
    assert cached is not None and cached[0] == 2
