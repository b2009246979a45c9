"""False alarms read on the second fresh half of bench/precision_projects.csv (issue 22),
after its blind run: one test per family of text, the true finding of the same shape kept."""

from test_rules import codes


def test_an_empty_tuple_default_is_an_empty_mapping():
    # jsonschema: ``handlers=()`` documented as a dict, given to ``dict()`` or ``.update()``.
    source = '''
        def resolver(base_uri, handlers=()):
            """Resolve references.

            Parameters
            ----------
            base_uri : str
                Where relative references start.
            handlers : dict
                URI schemes mapped to the functions that retrieve them.
            """
            return base_uri, dict(handlers)
    '''
    assert codes(source) == []
    assert codes(source.replace("handlers : dict", "handlers : Mapping")) == []
    # An empty dict is still no list, and () is no number.
    assert codes(source.replace("handlers=()", "handlers={}").replace(": dict", ": list")) == [
        ("DF201", "list")
    ]
    assert codes(source.replace("handlers : dict", "handlers : int")) == [("DF201", "int")]
