"""The smt engine: an action's fine runs over k moves as one z3 query (net.py the places, encode.py the
transition relation, unroll.py the query, queries.py the questions, decode.py the replay that judges
every sat model, answer.py one question answered, engine.py the engine the faces register).

z3 is optional (the `smt` extra): nothing here imports it until a question is asked, and without it the
engine's status says so."""
