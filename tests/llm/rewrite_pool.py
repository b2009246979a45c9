"""A pool of model answers for the verified rewrites of `clamp`, shared by the editor's and
the command line's tests: the model offers a more abstract description (ABSTRACT, from which
it writes code that behaves like clamp) and a lossy one (LOSSY, from which it writes code
that forgets the upper bound); only ABSTRACT keeps behaviour and reads more abstractly."""

DETAILED = (
    "Return max(low, min(value, high)): the smaller of value and high, "
    "then the larger of that and low."
)
SECTIONS = (
    "\n\n    Args:\n        value: the number to clamp.\n"
    "        low: the lower bound.\n        high: the upper bound.\n    "
)
ABSTRACT = "Return value limited to the range low..high: low when below it, high when above it."
LOSSY = "Return value, raised to low when it is below low."
EXACT = "def clamp(value, low=0, high=10):\n    return max(low, min(value, high))\n"
ALIKE = (
    "def clamp(value, low=0, high=10):\n"
    "    return min(max(value, low), high) if low <= high else low\n"
)
VARIED = [  # programs that all behave like clamp, each written differently
    "def clamp(value, low=0, high=10):\n    if value < low or low > high:\n        return low\n"
    "    if value > high:\n        return high\n    return value\n",
    "def clamp(value, low=0, high=10):\n"
    "    return sorted([low, value, high])[1] if low <= high else low\n",
    EXACT,
]
FORGETFUL = ["def clamp(value, low=0, high=10):\n    return max(low, value)\n"]
CORRECTION = "It also updates the item's quantity."


def answer_sonar(body: dict, sample: int) -> str | None:
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system.startswith("You improve the description"):
        return [ABSTRACT, LOSSY][sample % 2]
    if system.startswith("You correct one sentence"):
        return CORRECTION
    if system.startswith("You shorten"):
        return user
    if system.startswith("You are a Python programmer"):
        docstring = user.split("Docstring:\n", 1)[1].split("\n\nSignature and imports:", 1)[0]
        programs = (
            VARIED
            if docstring.startswith(ABSTRACT)
            else FORGETFUL
            if docstring.startswith(LOSSY)
            else [EXACT, ALIKE]
        )
        return programs[0] if body.get("temperature") == 0 else programs[sample % len(programs)]
    return None  # the judge: the scripted server's marker rule
