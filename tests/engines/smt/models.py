"""Small models of our own for the smt engine, each answer derived from the semantics (the comments)."""

from __future__ import annotations

import ir
from engines.runtime import Program

# A heater: the setpoint is an input the model leaves unbound, so it ranges over Integer. A setpoint
# above 30 drives the temperature above 30 (NotTooHot fails); assuming Sane (setpoint <= 25) no
# schedule and no setpoint breaks it.
HEATER = """package ctl {
	private import ScalarValues::*;
	action def Heat {
		in attribute setpoint : Integer;
		attribute temp : Integer := 15;
		attribute heater : Boolean := false;
		first start;
		then decide d;
			if setpoint > temp then on;
			else off;
		action on { assign heater := true; assign temp := setpoint; }
		then merge m;
		action off { assign heater := false; }
		then m;
		merge m;
		then done;
	}
	requirement NotTooHot { temp <= 30 }
	constraint Sane { setpoint <= 25 }
}
"""

# A booking race: two clerks each read the free seats into a local, then write back one fewer. Both
# reads may come before either write (a lost update): seats ends 1 or 0, so it is schedule-sensitive.
# The atomic version decrements in one assignment: seats ends 0 on every schedule.
BOOKING = """package booking {
	private import ScalarValues::*;
	action def Race {
		attribute seats : Integer := 2;
		first start;
		then fork f;
		then a;
		then b;
		action a { attribute seen : Integer := seats; assign seats := seen - 1; }
		then j;
		action b { attribute seen : Integer := seats; assign seats := seen - 1; }
		then j;
		join j;
		then done;
	}
	action def Atomic {
		attribute seats : Integer := 2;
		first start;
		then fork f;
		then a;
		then b;
		action a { assign seats := seats - 1; }
		then j;
		action b { assign seats := seats - 1; }
		then j;
		join j;
		then done;
	}
}
"""

# A join that only one branch of a decision reaches: the join waits for a succession from a node no
# token will reach, so every schedule deadlocks there.
DEADLOCK = """package stuck {
	private import ScalarValues::*;
	action def Wait {
		attribute go : Boolean := true;
		attribute n : Integer := 0;
		first start;
		then decide d;
			if go then left;
			else right;
		action left { assign n := n + 1; }
		then j;
		action right { assign n := n + 2; }
		then j;
		join j;
		then done;
	}
}
"""

# A pipeline stage divides by a divisor it is given: a divisor 0 is a run error, the others not.
# `Checked` routes 0 around the division through a decision, so no schedule and no input fails.
DIVIDE = """package pipe {
	private import ScalarValues::*;
	action def Scale {
		in attribute d : Integer;
		attribute r : Rational := 0;
		first start;
		then action s { assign r := 12 / d; }
		then done;
	}
	action def Checked {
		in attribute d : Integer;
		attribute r : Rational := 0;
		first start;
		then decide z;
			if d == 0 then skip;
			if d != 0 then s;
		action skip;
		then m;
		action s { assign r := 12 / d; }
		then m;
		merge m;
		then done;
	}
	action def NoBranch {
		attribute level : Integer := 5;
		first start;
		then decide z;
			if level > 10 then high;
			if level < 0 then low;
		action high;
		then done;
		action low;
		then done;
	}
}
"""

# A merge loop counting to 5: one pass is three moves (the merge, the test, the increment), so 8
# moves cannot finish it (no violation within 8 moves) while 30 can (proved). A body `while` loop
# pass by pass, as a fine run performs it.
LOOPS = """package loops {
	private import ScalarValues::*;
	action def Count {
		attribute i : Integer := 0;
		first start;
		then merge m;
		then decide test;
			if i < 5 then inc;
			else done;
		action inc { assign i := i + 1; }
		then m;
	}
	action def Pump {
		attribute level : Integer := 0;
		attribute strokes : Integer := 0;
		first start;
		then action fill {
			while level < 3 {
				assign level := level + 1;
				assign strokes := strokes + 1;
			}
		}
		then done;
	}
	requirement Bounded { i <= 5 }
}
"""

# A fork whose two branches each write x: x ends 1 or 2 (sensitive); leftRan and rightRan end true
# on every schedule (not sensitive).
FORK = """package forked {
	private import ScalarValues::*;
	action def Write {
		attribute x : Integer := 0;
		attribute leftRan : Boolean := false;
		attribute rightRan : Boolean := false;
		first start;
		then fork f;
		then left;
		then right;
		action left { assign x := 1; assign leftRan := true; }
		then j;
		action right { assign x := 2; assign rightRan := true; }
		then j;
		join j;
		then done;
	}
}
"""

# A node calling a calc: the encoding does not inline calls, so the question is refused naming it.
CALLS = """package calls {
	private import ScalarValues::*;
	calc def Halvings { in v : Integer; return : Integer = if v <= 1 ? 0 else 1 + Halvings(v - v / 2); }
	action def Use {
		attribute x : Integer := 1;
		first start;
		then action double { assign x := Halvings(x); }
		then done;
	}
}
"""

# Modes as an enumeration, chosen by a free input.
MODES = """package modes {
	private import ScalarValues::*;
	enum def Mode { enum eco; enum fast; }
	action def Drive {
		in attribute mode : Mode;
		attribute speed : Integer := 0;
		first start;
		then decide d;
			if mode == Mode::fast then quick;
			else slow;
		action quick { assign speed := 120; }
		then m;
		action slow { assign speed := 80; }
		then m;
		merge m;
		then done;
	}
	requirement Limit { speed <= 100 }
}
"""


# A for loop over 1..n with n an input: the sum of 1..n is never negative. Unbounded n runs past any
# k (no violation within k moves); assuming n <= 3 every schedule ends within k (proved).
SUMS = """package sums {
	private import ScalarValues::*;
	action def Sum {
		in attribute n : Integer;
		attribute total : Integer := 0;
		first start;
		then action acc { for i in 1..n { assign total := total + i; } }
		then done;
	}
	requirement NonNegative { total >= 0 }
	requirement Small { total <= 5 }
	constraint Few { n <= 3 }
}
"""


def program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "model.sysml")]))

# A product past the interpreter's bound on an exact number (MAX_DIGITS = 4,000 digits) is a run error
# (NumberTooLarge), an Integer's magnitude or a Rational's denominator: 10^2000 squared has 4,001
# digits and fails, 10^1999 squared has 3,999 and completes; 1/10^2000 squared has a denominator of
# 4,001 digits. `growth(digits)` is the model with x = 10^digits.
GROWTH = """package num {
	private import ScalarValues::*;
	action def Square {
		attribute x : Integer := BIG;
		attribute y : Integer := 0;
		first start; then sq;
		action sq { assign y := x * x; }
		then done;
	}
	action def Shrink {
		attribute x : Real := 1 / BIG;
		attribute y : Real := 0.0;
		first start; then sq;
		action sq { assign y := x * x; }
		then done;
	}
}"""


def growth(digits: int) -> str:
    return GROWTH.replace("BIG", "1" + "0" * digits)


# Performed actions (a node typed by an action, `perform`), each a performance with features of its
# own: bound inputs read around the node when it starts, an unbound parameter with no value reads the
# same-named feature around it, outputs return to the same-named feature (or the one a usage binds)
# when it ends. Answers derived from those rules:
# - Pipeline: Filter keeps 7 - 7 % 2 = 6 in clean; Gain reads clean = 6 and its default gain 3: 18.
# - Counter: each Book copies seats (2) in when it starts and out when it ends; when both start before
#   either ends both write 1 back (a lost update through parameters), else 0: seats ends 0 or 1.
# - Probe: Measure writes r only for x >= 0; its r is bound to reading, so a negative level ends it
#   with no value for a feature of multiplicity 1: a run error for every level < 0, none otherwise.
# - Nest: a node's features are reported by the path of the nodes around it (a.b.x), read around it.
# - Early: total reads p.b by its path; before p starts the path navigates no performance, so it has no
#   value and the copy into sum (of multiplicity [1]) fails, after p's start 0, after p's step 2: two
#   endings and a failure.
# - Outer: Peek, declared inside Outer, reads `hidden` by its name there; the performance holds no such
#   feature (it reads none of the action performing it): refused, not guessed.
PERFORMED = """package line {
	private import ScalarValues::*;
	action def Filter {
		in raw : Integer;
		out clean : Integer;
		first start;
		then action keepEven { assign clean := raw - raw % 2; }
		then done;
	}
	action def Gain {
		in clean : Integer;
		in gain : Integer = 3;
		out scaled : Integer;
		first start;
		then action times { assign scaled := clean * gain; }
		then done;
	}
	action def Pipeline {
		attribute raw : Integer := 7;
		attribute clean : Integer := 0;
		attribute scaled : Integer := 0;
		first start;
		then action clip : Filter;
		then action amplify : Gain;
		then done;
	}
	action def Book {
		inout seats : Integer;
		first start;
		then action take { assign seats := seats - 1; }
		then done;
	}
	action def Counter {
		attribute seats : Integer := 2;
		first start;
		then fork f;
		then a;
		then b;
		action a : Book;
		then j;
		action b : Book;
		then j;
		join j;
		then done;
	}
	action def Measure {
		in x : Integer;
		out r : Integer;
		first start;
		then decide d;
			if x >= 0 then ok;
			if x < 0 then done;
		action ok { assign r := x * 2; }
		then done;
	}
	action def Probe {
		in attribute level : Integer;
		attribute reading : Integer := 0;
		first start;
		then action m : Measure { in x = level; out r = reading; }
		then done;
	}
	action def Nest {
		attribute y : Integer := 0;
		first start then a;
		action a {
			action b { attribute x : Integer := 2; assign y := x; }
		}
		then done;
	}
	action def Own { in x : Integer; attribute b : Integer := 0; first start then s1; action s1 { assign b := x + 1; } then done; }
	action def Early {
		attribute sum : Integer := 0;
		first start;
		then fork f;
		then p;
		then total;
		action p : Own { in x = 1; }
		action total assign sum := p.b;
		join j;
		succession p then j;
		succession total then j;
		then done;
	}
	action def Outer {
		attribute hidden : Integer := 5;
		action def Peek { attribute seen : Integer := 0; first start; then action look { assign seen := hidden; } then done; }
		first start;
		then action peek : Peek;
		then done;
	}
}
"""


# Messages on the action's bus (engines/runtime/bus.py): a send puts its payload behind the messages
# there; an accept takes the oldest one its trigger matches (a number by the ScalarValues type it is
# an instance of, a Boolean, a signal by its definition) and waits while there is none. Answers:
# - Handshake: the consumer waits for Ready, which the producer sends: served ends 1 on every schedule.
# - Requests: alice sends 1, bob 2, the server takes the oldest: last ends 1 or 2 (sensitive).
# - Typed: tx sends 2.5 and 4 in either order (a body's statements are unordered); rxInt takes only 4,
#   rxReal the oldest number. When 4 comes first and rxReal takes it, rxInt waits forever (deadlock);
#   otherwise n = 4 and r = 2.5.
# - Gate: the level sent is an input; a Natural accept never takes a negative one: every level < 0
#   deadlocks, no other (assuming NonNegative, none does).
# - Collector: a loop pass accepts a reading and adds it; the sensor sends 3 and 4 in either order
#   of its unordered statements, so the sum is 7 after two passes on every schedule. In Racy the
#   pass is an action node whose add is written after the accept that declares its payload, so it
#   starts after it (a declaration keeps its place): 7 again, no pass reading a payload not taken.
MESSAGES = """package bus {
	private import ScalarValues::*;
	item def Ready;
	requirement AtMostOne { served <= 1 }
	constraint NonNegative { level >= 0 }
	action def Handshake {
		attribute served : Integer := 0;
		first start;
		then fork f;
		then producer;
		then consumer;
		action producer { send Ready(); }
		then j;
		action consumer accept Ready;
		then serve;
		action serve { assign served := served + 1; }
		then j;
		join j;
		then done;
	}
	action def Requests {
		attribute last : Integer := 0;
		first start;
		then fork f;
		then alice;
		then bob;
		then server;
		action alice { send 1; }
		then j;
		action bob { send 2; }
		then j;
		action server accept seat : Integer;
		then record;
		action record { assign last := seat; }
		then j;
		join j;
		then done;
	}
	action def Typed {
		first start;
		then fork f;
		then tx;
		then rxInt;
		then rxReal;
		action tx { send 2.5; send 4; }
		then j;
		action rxInt accept n : Integer;
		then j;
		action rxReal accept r : Real;
		then j;
		join j;
		then done;
	}
	action def Collector {
		attribute total : Integer := 0;
		attribute passes : Integer := 0;
		first start;
		then fork f;
		then sensor;
		then collect;
		action sensor { send 3; send 4; }
		then j;
		action collect {
			loop {
				accept reading : Integer;
				assign total := total + reading;
				assign passes := passes + 1;
			} until passes >= 2;
		}
		then j;
		join j;
		then done;
	}
	action def Racy {
		attribute total : Integer := 0;
		first start;
		then fork f;
		then sensor;
		then collect;
		action sensor { send 3; send 4; }
		then j;
		action collect {
			loop {
				action pass { accept reading : Integer; assign total := total + reading; }
			} until total >= 7;
		}
		then j;
		join j;
		then done;
	}
	action def Gate {
		in attribute level : Integer;
		attribute opened : Boolean := false;
		first start;
		then fork f;
		then tx;
		then rx;
		action tx { send level; }
		then j;
		action rx accept v : Natural;
		then open;
		action open { assign opened := true; }
		then j;
		join j;
		then done;
	}
}
"""


# The features of parts, read and written by a chain (`tank.level`): a part's object holds what is
# written (no type check), and a run reports a part's features once a move has read or written one of
# them (a part the action declares, from the start). Answers:
# - Drain: a and b each read tank.level (2) into l and write l - 1: 0 when one reads after the other
#   wrote, 1 when both read first (a lost update on the part); level never goes below 0 (NotNegative
#   holds on every schedule); spare is never touched, so no spare.* is reported.
# - Fill: t is the action's own part, reported from the start: level 2 + 3 = 5, open false.
PARTS = """package plant {
	private import ScalarValues::*;
	part def Tank {
		attribute level : Integer = 2;
		attribute open : Boolean = false;
	}
	part tank : Tank;
	part spare : Tank;
	requirement NotNegative { tank.level >= 0 }
	action def Drain {
		attribute seen : Integer := 0;
		first start;
		then fork f;
		then opener;
		then a;
		then b;
		action opener { assign tank.open := true; }
		then j;
		action a { attribute l : Integer := tank.level; assign tank.level := l - 1; }
		then j;
		action b { attribute l : Integer := tank.level; assign tank.level := l - 1; }
		then j;
		join j;
		then action look { assign seen := tank.level; }
		then done;
	}
	action def Fill {
		part t : Tank;
		first start;
		then action pour { assign t.level := t.level + 3; }
		then done;
	}
}
"""


# Steps of multiplicity (`a[2]`): the first move at the step starts its performances, each then a
# move of its own, the last to end going on. Answers:
# - Doubling: x = 1; a[2] adds 1 each, b doubles, beside them: a a b gives 6, a b a gives 5, b a a 4.
# - Skipped: z[0] names no performance: n stays 0, and the step's successions still follow (m = 1).
# - Twice: a merge loop reaches a[2] twice (i < 2): after both rounds c = 4 on every schedule.
# - Rounds: a[2] adds 2 a round while c < 6, so c never passes 8 (Small), on a schedule of any length.
MULTIPLE = """package multi {
	private import ScalarValues::*;
	requirement Small { c <= 8 }
	action def Doubling {
		attribute x : Integer := 1;
		first start;
		then fork f;
		then a;
		then b;
		action a[2] { assign x := x + 1; }
		then j;
		action b { assign x := x * 2; }
		then j;
		join j;
		then done;
	}
	action def Skipped {
		attribute n : Integer := 0;
		attribute m : Integer := 0;
		first start;
		then z;
		action z[0] { assign n := n + 1; }
		then after;
		action after { assign m := 1; }
		then done;
	}
	action def Twice {
		attribute c : Integer := 0;
		attribute i : Integer := 0;
		first start;
		then again;
		merge again;
		then a;
		action a[2] { assign c := c + 1; }
		succession first [*] a then [1] count;
		action count { assign i := i + 1; }
		then d;
		decide d;
			if i < 2 then again;
			else done;
	}
	action def Rounds {
		attribute c : Integer := 0;
		first start;
		then again;
		merge again;
		then a;
		action a[2] { assign c := c + 1; }
		then d;
		decide d;
			if c < 6 then again;
			else done;
	}
}
"""


# Strings: literals, concatenation and equality (the solver's string theory). Answers:
# - Log: a and b each append their letter to log ("start"), in either order: "startab" or "startba",
#   so log is schedule-sensitive; the decision after the join reads log == "startab" into first.
# - Words: the sender sends "go" and then "stop" in either order (unordered statements); the String
#   accept takes the oldest: heard ends "go" or "stop".
# - Login: user is a free String input; NotAdmin breaks exactly when the solver picks "admin".
STRINGS = """package text {
	private import ScalarValues::*;
	requirement NotAdmin { user != "admin" }
	action def Login {
		in attribute user : String;
		attribute granted : Boolean := false;
		first start;
		then decide d;
			if user == "root" then deny;
			else grant;
		action deny { assign granted := false; }
		then done;
		action grant { assign granted := true; }
		then done;
	}
	action def Log {
		attribute log : String := "start";
		attribute first : Boolean := false;
		first start;
		then fork f;
		then a;
		then b;
		action a { assign log := log + "a"; }
		then j;
		action b { assign log := log + "b"; }
		then j;
		join j;
		then action judge { assign first := log == "startab"; }
		then done;
	}
	action def Words {
		attribute heard : String := "";
		first start;
		then fork f;
		then tx;
		then rx;
		action tx { send "go"; send "stop"; }
		then j;
		action rx accept w : String;
		then keep;
		action keep { assign heard := w; }
		then j;
		join j;
		then done;
	}
}
"""


# `terminate;` ends the performance its flow is: every other token of it is dropped, and a node whose
# body it stands in ends and goes on. Answers:
# - Guarded: fill's three statements are unordered; the `if` terminates fill once level is 5. When
#   it reads level 0 nothing ends (log 1, then after adds 10: 11); after level is set, fill ends with
#   the log statement dropped (10) or already done (11). level is 5 in both.
# - Emergency: estop is a terminate action usage beside two pumping steps: its assignment and its
#   implicit terminate are unordered, and the terminate ends the whole action wherever the pump has
#   got to: pumped 0, 1 or 2, each with alarm true or false (six endings, every one complete).
TERMINATE = """package t {
	private import ScalarValues::*;
	action def Emergency {
		attribute pumped : Integer := 0;
		attribute alarm : Boolean := false;
		first start;
		then fork f;
		then pump;
		then estop;
		action pump { assign pumped := pumped + 1; }
		then pumpMore;
		action pumpMore { assign pumped := pumped + 1; }
		then j;
		action estop terminate { assign alarm := true; }
		then j;
		join j;
		then done;
	}
	action def Guarded {
		attribute level : Integer := 0;
		attribute log : Integer := 0;
		first start;
		then action fill {
			assign level := level + 5;
			if level > 3 { terminate; }
			assign log := log + 1;
		}
		then action after { assign log := log + 10; }
		then done;
	}
}
"""


# Timers: `accept after` on the run's one clock. Time passes only where no move is enabled (the
# interpreter's let_time_pass, as check and explore let it), to the earliest wake still to come; a
# wait's first move sets its wake (now + its duration) and goes on at once when that is not later.
# - Watchdog: the worker's two moves come before the watchdog's 5 s are up (nothing else waits on
#   time), so the watchdog always sees the doubled value: seen = 4, on every schedule.
# - Stagger: waits of 3 s and 5 s fix the order of their writes by the clock: x = 12. Tie: two waits of
#   5 s are due at one instant, and either may go first: x = 12 or 21.
# - Delayed: a sender waits 2 s and sends 5; the listener's accept waits for it: got = 5.
# - Poll: a loop that waits 1 s per round and counts to 3 (AtMostThree holds on every run).
# - Heartbeat: a loop that never ends, flipping level each second: Binary holds at every state, for
#   ever (k-induction: the clock's wake is armed only while a token waits, which the invariant says).
# - Instant: a wait of 0 s goes on in its first move: n = 1, no time passes.
# - Deadline: fills wake at 4 and then 8, a gate `accept at 6` between them: checked = 1, fuel = 2.
TIMERS = """package clock {
	private import ScalarValues::*;
	private import SI::*;
	requirement AtMostThree { count <= 3 }
	requirement Binary { level == 0 or level == 1 }
	action def Watchdog {
		attribute x : Integer := 1;
		attribute seen : Integer := 0;
		first start;
		then fork f;
		then work;
		then watch;
		action work { assign x := x * 2; }
		then more;
		action more { assign x := x * 2; }
		then j;
		action watch accept after 5 [s];
		then expire;
		action expire { assign seen := x; }
		then j;
		join j;
		then done;
	}
	action def Stagger {
		attribute x : Integer := 0;
		first start;
		then fork f;
		then a;
		then b;
		action a accept after 3 [s];
		then writeA;
		action writeA { assign x := x * 10 + 1; }
		then j;
		action b accept after 5 [s];
		then writeB;
		action writeB { assign x := x * 10 + 2; }
		then j;
		join j;
		then done;
	}
	action def Tie {
		attribute x : Integer := 0;
		first start;
		then fork f;
		then a;
		then b;
		action a accept after 5 [s];
		then writeA;
		action writeA { assign x := x * 10 + 1; }
		then j;
		action b accept after 5 [s];
		then writeB;
		action writeB { assign x := x * 10 + 2; }
		then j;
		join j;
		then done;
	}
	action def Delayed {
		attribute got : Integer := 0;
		first start;
		then fork f;
		then pause;
		then listen;
		action pause accept after 2 [s];
		then action tell { send 5 to listen; }
		then j;
		action listen accept n : Integer;
		then action keep { assign got := n; }
		then j;
		join j;
		then done;
	}
	action def Poll {
		attribute count : Integer := 0;
		first start;
		then merge m;
		then tick;
		action tick accept after 1 [s];
		then bump;
		action bump { assign count := count + 1; }
		then decide d;
			if count < 3 then m;
			else done;
	}
	action def Instant {
		attribute n : Integer := 0;
		first start;
		then now;
		action now accept after 0 [s];
		then action go { assign n := n + 1; }
		then done;
	}
	action def Deadline {
		attribute fuel : Integer := 0;
		attribute checked : Integer := -1;
		first start;
		then fork split;
		then fill1;
		then gate;
		action fill1 accept after 4 [s];
		then action f1 { assign fuel := fuel + 1; }
		then fill2;
		action fill2 accept after 4 [s];
		then action f2 { assign fuel := fuel + 1; }
		then j;
		action gate accept at 6;
		then action check { assign checked := fuel; }
		then j;
		join j;
		then done;
	}
	action def Heartbeat {
		attribute level : Integer := 0;
		first start;
		then merge m;
		then tick;
		action tick accept after 1 [s];
		then action flip { assign level := 1 - level; }
		then m;
	}
	action def Reads {
		attribute delay : Integer := 2;
		first start;
		then w;
		action w accept after delay [s];
		then done;
	}
}
"""

# A dosing mixer over two free Reals. `pour` adds rate * scale to the level while `stir` doubles it, the
# two racing after a fork: level ends rate*scale (stir first, 0 doubled) or 2*rate*scale (pour first),
# so it is sensitive wherever rate*scale != 0. `Twice` holds wherever a single pour doubled: it reads
# level == 0 or level == 2 * rate * scale, true on `Steady` (pour, then double) at every state.
# `Capped` (level <= 100) breaks for rate * scale > 50 on Steady. Unbounded, the solver broke every
# product with a 4,000-digit number the interpreter refuses; in the inputs' domain it cannot.
MIXER = """package mix {
	private import ScalarValues::*;
	action def Race {
		in attribute rate : Real;
		in attribute scale : Real;
		attribute level : Real := 0.0;
		first start;
		then fork f;
		then pour;
		then stir;
		action pour { assign level := level + rate * scale; }
		action stir { assign level := level * 2.0; }
		join j;
		succession pour then j;
		succession stir then j;
		succession j then done;
	}
	action def Steady {
		in attribute rate : Real;
		in attribute scale : Real;
		attribute level : Real := 0.0;
		attribute poured : Real := 0.0;
		first start;
		then action pour { assign poured := rate * scale; }
		then action double { assign level := poured * 2.0; }
		then done;
	}
	requirement Twice { level == 0.0 or level == poured * 2.0 }
	requirement Capped { level <= 100.0 }
	constraint Positive { rate > 0.0 and scale > 0.0 }
}
"""
