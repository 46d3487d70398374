#!/usr/bin/python3
"""bench/table.py: the README's performance tables from one bench run.

  MODELS=yes ORT_DIR=/tmp/ort make bench > run.txt; bench/table.py run.txt

Reads what bench/run.sh (and bench/models/run.py after it) printed and
writes Markdown: the kernel cases (onnxop and ORT medians and minimums in
µs, the ratio of medians and its target), the threads table of the heavy
cases, and for the whole models the times (ms), their --threads speedups
beside ORT's, peak RSS and how the outputs compare. Only formats: every
number is the run's own; a row the run did not print is left out.
"""
import re
import sys

# what each kernel case of bench/run.sh is, for the table's first column
ABOUT = {
    "add": "Add 4M + 4M float32",
    "reducesum": "ReduceSum [1024,4096] axis 1",
    "reducesum0": "ReduceSum [4096,1024] axis 0",
    "softmax": "Softmax [1024,1024]",
    "softmax0": "Softmax [1024,1024] axis 0",
    "transpose": "Transpose [1024,1024]",
    "seqat": "SequenceConstruct → SequenceAt, 3 × 16M floats",
    "matmul512": "MatMul 512³",
    "matmul1024": "MatMul 1024³",
    "conv": "Conv 1×64×56×56, 64 3×3 filters, pads 1",
    "einsum_bmm": "Einsum bij,bjk->bik, 64 × 64²",
    "einsum_qk": "Einsum bhid,bhjd->bhij, 8 × 8 × 64²",
    "addc": "Add (1,64,56,56) + (1,64,1,1)",
    "mulc": "Mul (1,64,56,56) × (1,64,1,1)",
    "subc": "Sub per channel",
    "divc": "Div per channel",
    "resize_n": "Resize nearest ×2, (1,64,56,56)",
    "resize_l": "Resize linear ×2, (1,64,56,56)",
    "concat": "Concat two (1,64,56,56) on axis 1",
    "maxpool": "MaxPool 3×3/2 pad 1, (1,64,112,112)",
    "batchnorm": "BatchNormalization (1,64,56,56)",
    "clip": "Clip 0..6 (1,64,56,56)",
    "relu": "Relu (1,64,56,56)",
    "leakyrelu": "LeakyRelu (1,64,56,56)",
    "hardsigmoid": "HardSigmoid (1,64,56,56)",
    "hardswish": "HardSwish (1,64,56,56)",
    "pow2": "Pow x^2 (1,64,56,56)",
    "relu16": "Relu float16 (1,64,112,112)",
    "add16": "Add float16 (1,64,112,112)",
    "cast16": "Cast float32 → float16 (1,64,112,112)",
    "gemv": "Gemm (1,3264) × (128,3264)ᵀ + C",
    "matvec": "MatMul (4,1024) × (1024,1024)",
    "conv1x1": "Conv 1×64×80×80, 128 1×1 filters",
    "dw3s1": "depthwise 3×3, 96 channels, 80×80, stride 1",
    "dw3s2": "depthwise 3×3, 96 channels, 80×80, stride 2",
    "dw5s1": "depthwise 5×5, 192 channels, 40×40, stride 1",
    "dw5s2": "depthwise 5×5, 192 channels, 40×40, stride 2",
    "conv1d": "Conv1d 16000 samples, 257 filters of 512, stride 160",
    "convt2": "ConvTranspose 1×24×80×80, 24 2×2 filters, stride 2",
    "conv1024": "Conv 1×4×1024×1024, 8 3×3 filters",
    "conv_f16": "Conv float16 1×32×128×128, 32 3×3 filters",
    "convint": "ConvInteger uint8 1×64×128×128, 64 3×3 filters",
    "qlinconv": "QLinearConv uint8, the same shape, int32 bias",
    "lstm_b1_h64": "LSTM bidirectional, 64 steps, batch 1, hidden 64",
    "lstm_b2_h256": "LSTM bidirectional, 64 steps, batch 2, hidden 256",
    "lstm_b8_h512": "LSTM bidirectional, 64 steps, batch 8, hidden 512",
    "gru_b1_h64": "GRU bidirectional, 64 steps, batch 1, hidden 64",
    "gru_b8_h512": "GRU bidirectional, 64 steps, batch 8, hidden 512",
    "rnn_b1_h64": "RNN bidirectional, 64 steps, batch 1, hidden 64",
    "rnn_b8_h512": "RNN bidirectional, 64 steps, batch 8, hidden 512",
    "mm_qkv": "MatMul [1,128,768] × W [768,768] (initializer)",
    "mm_ffn1": "MatMul [1,128,768] × W [768,3072]",
    "mm_ffn2": "MatMul [1,128,3072] × W [3072,768]",
    "mm_heads": "MatMul over heads [1,12,128,64] × [1,12,64,128]",
    "mm_heads_v": "MatMul over heads [1,12,128,128] × [1,12,128,64]",
    "softmax_heads": "Softmax [1,12,128,128] last axis",
    "mask_add": "Add [1,12,128,128] + mask [1,1,1,128]",
    "layernorm": "LayerNormalization [1,128,768]",
    "gelu_erf": "GELU as Div/Erf/Add/Mul/Mul, [1,128,3072]",
    "gelu20": "Gelu-20 [1,128,3072]",
    "gelu_tanh": "GELU tanh form (Mul/Pow/.../Tanh), [1,128,3072]",
    "transpose_heads": "Transpose [1,128,12,64] perm 0,2,1,3",
    "gather_emb": "Gather [30522,768] embedding, 128 ids",
    "dec_gemm": "Gemm [1,768] × W [768,2304] + b",
    "dec_ffn2": "Gemm [1,3072] × W [3072,768] + b",
    "dec_head": "MatMul [1,1,768] × W [768,50257]",
    "kv_concat": "Concat [1,12,127,64] + [1,12,1,64] on axis 2",
    "dec_split": "Split [1,1,2304] into 3",
    "dec_heads": "Transpose [1,1,12,64] perm 0,2,1,3",
    "dec_kt": "Transpose [1,12,128,64] perm 0,1,3,2",
    "softmax_row": "Softmax [1,12,1,128] last axis",
    "erf_vit": "Erf [1,197,3072] (ViT-B/16's GELU)",
    "softmax_vit": "Softmax [1,12,197,197] last axis (ViT-B/16)",
}


def blocks(text):
    """The run's tables: lists of rows (lists of words), each table starting
    with its header row."""
    out, cur = [], None
    for line in text.splitlines():
        words = line.split()
        if not words:
            cur = None
            continue
        if words[0] in ("case", "model") and len(words) > 2:
            cur = [words]
            out.append(cur)
        elif cur is not None:
            cur.append(words)
    return out


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()


def main(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    for b in blocks(text):
        head = b[0]
        if head[:3] == ["case", "onnxop_us", "ort_us"]:
            rows = []
            for w in b[1:]:
                if len(w) < 7 or w[0] not in ABOUT:
                    continue
                target = "≤ " + w[4] + (" (missed)" if "MISS" in w else "")
                rows.append([ABOUT[w[0]], w[1], w[2], w[3], target, w[-2], w[-1]])
            table(["case", "onnxop median", "ORT median", "ratio", "target", "onnxop min", "ORT min"], rows)
        elif head[:3] == ["case", "threads", "rounds"]:
            rows = [[ABOUT.get(w[0], w[0])] + w[1:6] for w in b[1:] if len(w) >= 6]
            table(["case", "threads", "rounds × runs", "onnxop median", "speedup", "onnxop min"], rows)
        elif head[:3] == ["model", "onnxop_ms", "ORT_ms"]:
            rows = [w[:7] for w in b[1:] if len(w) >= 7]
            head = ["model", "onnxop median", "ORT median", "ratio", "onnxop min", "ORT min", "ratio of mins"]
            if len(b[0]) >= 11:  # ORT with all its graph optimisations beside
                rows = [w[:11] for w in b[1:] if len(w) >= 11]
                head += ["ORT-all median", "ratio to all", "ORT-all min", "ratio of mins to all"]
            if len(b[0]) >= 12:  # the times from alternating rounds
                rows = [w[:12] for w in b[1:] if len(w) >= 12]
                head += ["rounds × runs"]
            table(head, rows)
        elif head[:3] == ["model", "threads", "rounds"]:
            rows = [w[:9] for w in b[1:] if len(w) >= 9]
            table(["model", "threads", "rounds × runs", "onnxop median", "speedup", "onnxop min", "ORT median",
                   "ORT speedup", "ORT min"], rows)
        elif head[:3] == ["model", "onnxop_MiB", "ORT_MiB"]:
            if head[3:7] == ["ORT_all_MiB", "onnxop_load_ms", "ORT_load_ms", "ORT_all_load_ms"]:
                rows = [w[:7] + [re.sub(r"\|", "\\|", " ".join(w[7:]))] for w in b[1:]
                        if len(w) >= 8 and not w[0].startswith("(")]
                table(["model", "peak RSS onnxop (MiB)", "ORT off (MiB)", "ORT all (MiB)", "load onnxop (ms)",
                       "ORT off (ms)", "ORT all (ms)", "outputs against ORT"], rows)
            else:  # runs from before the load times
                rows = [[w[0], w[1], w[2], re.sub(r"\|", "\\|", " ".join(w[3:]))] for w in b[1:]
                        if len(w) >= 4 and not w[0].startswith("(")]
                table(["model", "peak RSS onnxop (MiB)", "ORT (MiB)", "outputs against ORT"], rows)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: bench/table.py RUN_OUTPUT", file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
