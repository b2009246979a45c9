"""The rule table is static and complete: every rule is known without importing the
layer that makes its findings, and what the table says is what each layer uses."""

import json
import subprocess
import sys

from docfact.checks.registry import RULES
from docfact.llm.judge import FINDING_CODES


def test_every_rule_is_known_before_any_layer_is_imported():
    code = (
        "import json, sys, docfact.cli; from docfact.checks.registry import RULES; "
        "print(json.dumps([sorted(RULES), 'docfact.sonar_ssc' in sys.modules, "
        "'docfact.checks.names' in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    codes, scoring_loaded, checks_loaded = json.loads(done.stdout)
    assert codes == sorted(RULES) and {"DF104", "DF106", "DF304", "DF305"} <= set(codes)
    assert not scoring_loaded and not checks_loaded


def test_each_rule_is_made_by_the_layer_the_table_names():
    for code, rule in RULES.items():
        assert (rule.check is None) == (rule.made_by != "check"), code
        if rule.check is not None:
            assert rule.check.__name__ == rule.name.replace("-", "_")
    assert {c for c, r in RULES.items() if r.made_by == "judge"} == set(FINDING_CODES.values())
    assert {c for c, r in RULES.items() if r.made_by == "project"} == {"DF106"}
    assert {c for c, r in RULES.items() if r.made_by == "scores"} == {"DF304", "DF305"}
    assert all(RULES[code].criterion == criterion for criterion, code in FINDING_CODES.items())
