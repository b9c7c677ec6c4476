"""Small models the face tests share: a fork race, a loop that never ends, a guard that is not Boolean."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.witness import Claim, ClaimKind, Witness, model_hash
from opensysml_kernel.session import Session

RACE = """package race {
    private import ScalarValues::*;
    action Race {
        attribute c : Integer := 0;
        first start;
        then fork f;
            then a;
            then b;
        action a { assign c := 1; }
        action b { assign c := 2; }
        succession a then j;
        succession b then j;
        join j;
        then done;
    }
}
"""

RUNAWAY = """package loops {
    private import ScalarValues::*;
    action Runaway {
        attribute total : Integer = 0;
        first start;
        action spin {
            while total >= 0 {
                assign total := total + 1;
            }
        }
        done;
        succession first start then spin;
        succession first spin then done;
    }
}
"""

NOT_BOOLEAN = """package guards {
    action Seq {
        attribute x;
        attribute y = 0;
        action s0 assign x := 7;
        action s1 assign y := 9;
        action s2 assign y := 1;
        first s0 then s1;
        succession first s1 if x then s2;
    }
}
"""


@pytest.fixture
def session() -> Session:
    return Session()


@pytest.fixture
def race(session: Session) -> Session:
    """A session with the race model submitted."""
    session.submit(RACE)
    return session


TANK = """package tank {
    private import ScalarValues::*;
    item def Ack;
    action Fill {
        attribute level : Integer := 0;
        first start;
        then fork f;
            then pump;
            then valve;
        action pump { assign level := level + 5; }
        action valve { assign level := level - 3; }
        succession pump then j;
        succession valve then j;
        join j;
        then done;
    }
    requirement NeverNegative {
        require constraint { level >= 0 }
    }
    action Handshake {
        attribute sent : Integer := 0;
        first start;
        then fork f;
            then work;
            then ack;
        action work { assign sent := 1; }
        action ack accept a : Ack;
        succession work then j;
        succession ack then j;
        join j;
        then done;
    }
}
"""


@pytest.fixture
def tank(session: Session) -> Session:
    """A session with the tank model: a requirement broken after some moves, and a deadlock."""
    session.submit(TANK)
    return session


def hand_witness(session: Session, action: str, path: Path, body: str = "",
                 claims: tuple[Claim, ...] = (Claim(ClaimKind.COMPLETES),)) -> Path:
    """A hand-made witness of `action` in the session's model, its choice lines `body` (none: a fine run
    that takes the first enabled move each time), written to `path`."""
    from engines.witness import parse_witness

    header = Witness(session.action_name(action), model_hash(session.model), "hand", claims, (), ())
    head, _, tail = header.text().partition("\n\n")
    text = head + "\n" + body + ("\n" if body and not body.endswith("\n") else "") + "\n" + tail
    parse_witness(text)  # a test's witness is in the format, or the test is wrong
    path.write_text(text, encoding="utf-8")
    return path
