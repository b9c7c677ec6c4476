"""What the generated graphs found: the reasons of the strict xfails and the minimal models."""

from __future__ import annotations

IF_BRANCH = ("the canonical state names a token inside an `if` statement's block by the `if` node and "
             "the statement's index, not by which block (then or else) it entered: two states whose "
             "token waits at index 0 of different blocks of one `if` are one visited state, and the "
             "orders past the second are never searched")

RACE_TO_MINUS_ONE = """package g {
	action m {
		attribute x := 0;
		first start;
		then fork f;
			then a;
			then b;
		action a { assign x := -1; }
		action b { assign x := -2; }
		succession a then j;
		succession b then j;
		join j;
		then done;
	}
}
"""

IF_THEN_OR_ELSE = """package g {
	action m {
		attribute x := 0;
		attribute y := 1;
		first start;
		then action a1 {
			if x > 0 { assign x := x + 1; } else { assign y := y + 1; }
			assign x := x + 1;
		}
		then done;
	}
}
"""

# s1 sends x before or after `a` writes 2 to it; the second pair's accept may take s1's message.
CROSSING_PAIRS = """package g {
	action m {
		attribute x := 1;
		attribute g1 := 0;
		attribute g2 := 0;
		first start;
		then fork f;
			then s1;
			then r1;
			then a;
		action s1 send x;
		action r1 accept v : Integer;
		action q1 { assign g1 := r1.v; }
		action a { assign x := 2; }
		then fork f2;
			then s2;
			then r2;
		action s2 send x;
		action r2 accept v : Integer;
		action q2 { assign g2 := r2.v; }
		succession r1 then q1;
		succession r2 then q2;
		succession s1 then j;
		succession q1 then j;
		succession s2 then j;
		succession q2 then j;
		join j;
		then done;
	}
}
"""

# one message, two accepts: either accept may be the one left waiting
ONE_MESSAGE_TWO_ACCEPTS = """package g {
	action m {
		first start;
		then fork f;
			then s;
			then r;
			then r2;
		action s send 1;
		action r accept v : Integer;
		action r2 accept w : Integer;
		succession s then j;
		succession r then j;
		succession r2 then j;
		join j;
		then done;
	}
}
"""
