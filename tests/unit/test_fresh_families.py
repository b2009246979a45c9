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


def test_a_numpy_section_ends_at_a_heading_whose_underline_was_forgotten():
    # kombu: an underlined "Arguments:" and then "Returns" with neither colon nor underline.
    source = '''
        def new_queue(queue, **kwargs):
            """Ensure a queue exists.

            Arguments:
            ---------
                queue (str): the queue name
            Returns
                str: the queue URL
            """
            return queue
    '''
    assert codes(source) == []
    # A stale entry before the forgotten heading is still reported, and a parameter named
    # like a section (lowercase, NumPy's own layout) is still an entry.
    assert codes(source.replace("queue (str)", "name:")) == [("DF101", "name")]
    notes = '''
        def annotate(text):
            """Annotate.

            Parameters
            ----------
            text : str
                The text.
            notes
                Notes to add.
            """
            return text
    '''
    assert codes(notes) == [("DF101", "notes")]
