"""SONAR's Fluency: the causal-LM path on a tiny GPT-2 built here, and the Kneser-Ney
prose model (trained once, in a process of its own, on the stdlib's and the installed
packages' docstring descriptions) that is the default."""

import gzip
import json
import math
import os
import sys
import time

import pytest

from docfact.cache import Cache
from docfact.config import SonarSettings
from docfact.sonar import fluency as flu
from docfact.sonar import prose_lm, score

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
WORDS = "the a of to and is are returns return list items number numbers sum file open".split()


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory):
    """A random 2-layer GPT-2 (16 dims, 1100 positions) with a word-level tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-gpt2")
    vocab = {token: i for i, token in enumerate(["<|endoftext|>", "[UNK]", *WORDS])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
    ).save_pretrained(folder)
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(vocab),
        n_positions=1100,
        n_embd=16,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=0,
    )
    GPT2LMHeadModel(config).eval().save_pretrained(folder)
    return folder


def by_hand(folder, ids):
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    batch = torch.tensor([ids])
    with torch.no_grad():
        logits = model(batch).logits[0, :-1]
    logprobs = torch.log_softmax(logits, dim=-1)
    nll = -logprobs[range(len(ids) - 1), batch[0, 1:]].mean()
    return math.exp(float(nll))


def test_normalisation_anchors():
    assert flu.normalised(8) == 1.0
    assert flu.normalised(500) == 0.0
    assert flu.normalised(math.sqrt(8 * 500)) == pytest.approx(0.5)
    assert flu.normalised(2) == 1.0 and flu.normalised(10_000) == 0.0  # clipped
    assert flu.normalised(40) == pytest.approx(
        (math.log(500) - math.log(40)) / (math.log(500) - math.log(8))
    )
    assert flu.normalised(20, low=10, high=40) == pytest.approx(0.5)
    assert flu.normalised(math.inf) == 0.0 and flu.normalised(math.nan) == 0.0


def test_tiny_gpt2_scores_through_the_real_loading_path(tiny_gpt2):
    text = "returns the sum of a list of numbers"
    value, how = flu.fluency(text, model=str(tiny_gpt2))
    ids = [2 + WORDS.index(w) if w in WORDS else 1 for w in text.split()]
    ppl = by_hand(tiny_gpt2, ids)
    assert value == pytest.approx(flu.normalised(ppl), abs=1e-6)
    assert how == f"{tiny_gpt2.name} perplexity {ppl:.1f} over {len(ids)} tokens"


def test_tiny_gpt2_truncates_at_1024_tokens(tiny_gpt2):
    value, how = flu.fluency(" ".join(WORDS * 100), model=str(tiny_gpt2))  # 1700 tokens
    assert 0 <= value <= 1 and how.endswith("over 1024 tokens")


def test_tiny_gpt2_scores_one_word_after_the_start_token(tiny_gpt2):
    value, how = flu.fluency("sum", model=str(tiny_gpt2))
    assert value == pytest.approx(flu.normalised(by_hand(tiny_gpt2, [0, 2 + WORDS.index("sum")])))
    assert how.endswith("over 2 tokens")


def test_a_model_that_cannot_load_falls_back_to_ngrams(tmp_path):
    value, how = flu.fluency("Return the number of items.", model=str(tmp_path / "missing"))
    assert 0 <= value <= 1
    assert "could not be loaded" in how and "Kneser-Ney" in how


async def test_a_model_without_transformers_here_is_measured_once_it_is_installed(
    tiny_gpt2, tmp_path, monkeypatch
):
    """The configured fluency model cannot load because transformers cannot be imported
    (the models extra missing): the n-gram model's stand-in value is shown but not stored
    in the SQLite cache under the model's name; once transformers imports, the next run,
    reading the same cache file, measures with the model."""
    settings = SonarSettings(fluency_model=str(tiny_gpt2))
    text = "Returns the sum of a list of numbers."
    flu._causal_lm.cache_clear()  # loaded once per process: this test loads it twice
    with monkeypatch.context() as missing:
        missing.setitem(sys.modules, "transformers", None)  # import transformers fails
        cache = Cache(tmp_path / "cache")
        try:
            stand_in = await score._fluency(text, settings, cache)
        finally:
            cache.close()
        flu._causal_lm.cache_clear()
    assert "transformers is not installed" in stand_in.how and "Kneser-Ney" in stand_in.how
    cache = Cache(tmp_path / "cache")
    try:
        measured = await score._fluency(text, settings, cache)
        again = await score._fluency(text, settings, cache)
    finally:
        cache.close()
    assert measured.how.startswith(f"{tiny_gpt2.name} perplexity")
    assert again == measured  # the model's own value is kept


def test_ngram_default_prefers_fluent_english_to_word_salad():
    fluent = [
        flu.fluency(s)[0]
        for s in (
            "Return the number of items in the list.",
            "Open the file and read its contents into a string.",
            "Compute the sum of two numbers and return the result.",
        )
    ]
    salad = [
        flu.fluency(s)[0]
        for s in (
            "list the of items number return in the.",
            "string file into its read contents and the open a.",
            "banana seven purple quickly the of xyzzy",
        )
    ]
    assert min(fluent) > max(salad)
    assert flu.fluency("Return the number of items in the list.")[1].startswith(
        "Kneser-Ney trigram of docstring descriptions: SLOR"
    )


def test_rare_words_are_not_bad_prose():
    """SLOR discounts what the words' own frequencies explain: a plain sentence of rare
    words still reads better than the same words shuffled."""
    plain, _ = flu.fluency("Count every unit in stock.")
    salad, _ = flu.fluency("units stock every in count the of")
    assert plain > salad


def test_only_the_description_is_scored():
    docstring = (
        "Add stock to an item.\n\nThe ``amount`` may be 0.\n\n>>> restock(item, 3)\n"
        "Item(...)\n\nArgs:\n    item: The item.\n    amount: How many.\n"
    )
    assert prose_lm.description(docstring) == "Add stock to an item.\n\nThe ``amount`` may be 0."
    assert flu.fluency(docstring) == flu.fluency(
        "Add stock to an item.\n\nThe ``amount`` may be 0."
    )
    assert flu.fluency("Args:\n    x: The x.\n") == (
        None,
        "no description prose to score (only sections or code)",
    )
    assert (
        prose_lm.description("Use it so::\n\n    run(x)\n\nThen stop.")
        == "Use it so:\n\nThen stop."
    )
    assert prose_lm.tokens("Call `run` on my_list.items() 3 times, then getValue.") == [
        "call",
        "<code>",
        "on",
        "<name>",
        "<num>",
        "times",
        ",",
        "then",
        "<name>",
        ".",
    ]


@pytest.mark.parametrize("text", ["", "   \n\t ", None])
def test_empty_text_is_unmeasured(text):
    assert flu.fluency(text) == (None, "empty text" if text is not None else "no text")


@pytest.mark.parametrize(
    "text",
    [
        "\ud800 lone surrogate",
        "☃ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🙂",
        "\u202eright to left\u202c",
        "nul\x00byte",
        "ŝàmé wörds",
        "!!! ??? ...",
    ],
)
def test_odd_unicode_gets_an_answer(text, tiny_gpt2):
    for model in (None, str(tiny_gpt2)):
        value, how = flu.fluency(text, model=model)
        assert value is None or 0 <= value <= 1
        assert isinstance(how, str) and how


def test_huge_text_is_cut_and_quick(tiny_gpt2):
    huge = "Return the number of items in the list. " * 50_000  # 2 MB
    began = time.monotonic()
    for model in (None, str(tiny_gpt2)):
        value, how = flu.fluency(huge, model=model)
        assert 0 <= value <= 1 and "1024" in how
    assert time.monotonic() - began < 10


PARAGRAPHS = [
    ["return", "the", "number", "of", "items", "."],
    ["open", "the", "file", "for", "reading", "."],
    ["the", "sum", "of", "the", "items", "."],
] * 20


def test_a_stored_model_is_read_back_and_a_broken_one_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCFACT_CACHE_DIR", str(tmp_path))
    built = prose_lm.build(PARAGRAPHS)
    path = flu.prose_model_path()
    with gzip.open(path, "wt") as stream:
        json.dump(prose_lm.to_json(built), stream)
    loaded = flu.prose_model.__wrapped__()  # bypass the per-process memo
    sequence = ["return", "the", "sum", "of", "the", "items", "."]
    assert loaded.score(sequence) == pytest.approx(built.score(sequence))
    assert (loaded.fluent, loaded.salad) == (built.fluent, built.salad)
    with gzip.open(path, "wt") as stream:  # valid gzip, another version
        json.dump({**prose_lm.to_json(built), "version": 0}, stream)
    with pytest.raises(ValueError):
        flu.read_model(path)


def test_kneser_ney_is_a_distribution():
    lm = prose_lm.train(PARAGRAPHS)
    for context in (("<s>", "<s>"), ("the", "sum"), ("of", "the"), ("never", "seen")):
        total = sum(lm.probability(*context, w) for w in lm.vocabulary)
        assert total == pytest.approx(1.0, abs=1e-9)


def test_prose_model_anchors_order_salad_below_fluent():
    model = flu.prose_model()
    assert model.salad < model.fluent and model.paragraphs > 10_000


@pytest.fixture
def hub_cache_with_gpt2(tiny_gpt2, tmp_path, monkeypatch):
    """A Hugging Face cache holding "gpt2" (the tiny model), laid out as the hub lays it."""
    from huggingface_hub import constants

    commit = "0" * 40
    repo = tmp_path / "hub" / "models--gpt2"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for file in tiny_gpt2.iterdir():
        (snapshot / file.name).write_bytes(file.read_bytes())
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    flu._cached_gpt2.cache_clear()
    yield
    flu._cached_gpt2.cache_clear()


def test_gpt2_in_the_local_hub_cache_is_the_default(hub_cache_with_gpt2):
    value, how = flu.fluency("returns the sum of a list of numbers")
    assert how.startswith("gpt2 perplexity") and 0 <= value <= 1
