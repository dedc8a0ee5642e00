import pytest

from storage.sql import bind, numbered


def test_positional_placeholders_are_numbered_in_order():
    statement = numbered("SELECT * FROM t WHERE a = ? AND b IN (?, ?)")
    assert statement.sql == "SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)"
    assert bind(statement, (1, 2, 3)) == (1, 2, 3)


def test_named_placeholders_keep_one_number_per_name():
    statement = numbered("SELECT :now, :limit, :now")
    assert statement.sql == "SELECT $1, $2, $1"
    assert bind(statement, {"limit": 5, "now": "t"}) == ("t", 5)


def test_quotes_comments_and_casts_are_not_placeholders():
    sql = "SELECT '?', ':x', \"a?b\", x::text -- what? :y\n, ?"
    assert numbered(sql).sql == "SELECT '?', ':x', \"a?b\", x::text -- what? :y\n, $1"


def test_mixing_styles_is_refused():
    with pytest.raises(ValueError, match="mixes"):
        numbered("SELECT ?, :a")


def test_wrong_parameter_shape_is_refused():
    with pytest.raises(TypeError):
        bind(numbered("SELECT ?"), {"a": 1})
    with pytest.raises(TypeError):
        bind(numbered("SELECT :a"), (1,))
