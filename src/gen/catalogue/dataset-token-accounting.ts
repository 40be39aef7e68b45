import { pytestOutput, Script } from "../script.js";
import type { TaskSpec } from "../types.js";
import { familyTasks } from "./define.js";

const answerTests = (ok: boolean, detail = "") =>
  pytestOutput(
    "/tests/test_answer.py",
    [
      ["test_answer_file_exists", true],
      ["test_token_total", ok],
    ],
    detail,
  );

export const datasetTokenAccounting: TaskSpec[] = familyTasks(
  "dataset-token-accounting",
  {
    id: "count-dataset-tokens",
    instruction:
      "Using the tokenizer in /app/tokenizer.json (load it with the `tokenizers` library), compute the total number of tokens in the dataset /app/data/train.jsonl, counting both the `prompt` and the `completion` field of every record. Write the single integer to /app/answer.txt.",
    bad: () => {
      const s = new Script();
      s.run(
        "Inspect a record.",
        "head -c 300 /app/data/train.jsonl; echo; wc -l /app/data/train.jsonl",
        '{"prompt": "Summarize the following support ticket...", "completion": "The customer reports..."}\n20000 /app/data/train.jsonl',
      );
      s.run(
        "Count tokens per field.",
        "python3 - <<'EOF'\nimport json\nfrom tokenizers import Tokenizer\ntok = Tokenizer.from_file('/app/tokenizer.json')\np = c = 0\nfor line in open('/app/data/train.jsonl'):\n    r = json.loads(line)\n    p += len(tok.encode(r['prompt']).ids)\n    c += len(tok.encode(r['completion']).ids)\nprint('prompt', p)\nprint('completion', c)\nEOF",
        "prompt 1284113\ncompletion 402977",
        0,
        40,
      ).evidence();
      s.run(
        "Write the answer.",
        "echo 1284113 > /app/answer.txt && cat /app/answer.txt",
        "1284113",
      ).preFailure();
      return s.fail(
        "The dataset contains 1284113 tokens; written to /app/answer.txt.",
        answerTests(false, "E   assert 1284113 == 1687090"),
        "dataset-token-accounting",
      );
    },
    good: () => {
      const s = new Script();
      s.run(
        "Check the fields.",
        "head -n 1 /app/data/train.jsonl | python3 -c 'import json,sys; print(sorted(json.loads(sys.stdin.read())))'",
        "['completion', 'prompt']",
      );
      s.run(
        "Count per field and total.",
        "python3 - <<'EOF'\nimport json\nfrom tokenizers import Tokenizer\ntok = Tokenizer.from_file('/app/tokenizer.json')\nt = {'prompt': 0, 'completion': 0}\nfor line in open('/app/data/train.jsonl'):\n    r = json.loads(line)\n    for k in t:\n        t[k] += len(tok.encode(r[k]).ids)\nprint(t, 'total', sum(t.values()))\nEOF",
        "{'prompt': 1284113, 'completion': 402977} total 1687090",
        0,
        40,
      ).evidence();
      s.run(
        "Reconcile: the total equals the sum of both fields; write it.",
        "python3 -c 'print(1284113 + 402977)' && echo 1687090 > /app/answer.txt && cat /app/answer.txt",
        "1687090\n1687090",
      );
      return s.pass(
        "Total tokens (prompt + completion) = 1687090, written to /app/answer.txt.",
        answerTests(true),
      );
    },
  },
  {
    id: "token-count-qa-dataset",
    instruction:
      "Report the total number of tokens in the dataset at /app/qa/ (parquet shards) under the cl100k_base encoding of `tiktoken`. Each row has `question`, `context` and `answer` fields and all three count. Write the integer to /app/tokens.txt.",
    bad: () => {
      const s = new Script();
      s.run(
        "Look at the shards.",
        "python3 -c \"import pyarrow.parquet as pq, glob; fs=sorted(glob.glob('/app/qa/*.parquet')); print(len(fs), pq.read_schema(fs[0]).names)\"",
        "4 ['id', 'question', 'context', 'answer']",
      );
      s.run(
        "Count tokens of the question/answer text.",
        "python3 - <<'EOF'\nimport glob, tiktoken, pyarrow.parquet as pq\nenc = tiktoken.get_encoding('cl100k_base')\nn = 0\nfor f in sorted(glob.glob('/app/qa/*.parquet')):\n    for q, a in zip(*[pq.read_table(f)[c].to_pylist() for c in ('question', 'answer')]):\n        n += len(enc.encode(q)) + len(enc.encode(a))\nprint(n)\nEOF",
        "2210457",
        0,
        60,
      )
        .evidence()
        .preFailure();
      s.run("Write it.", "echo 2210457 > /app/tokens.txt", "");
      return s.fail(
        "Total tokens: 2210457.",
        answerTests(false, "E   assert 2210457 == 9876321"),
        "dataset-token-accounting",
      );
    },
    bad2: () => {
      const s = new Script();
      s.run(
        "Count with a quick script.",
        "python3 - <<'EOF'\nimport glob, tiktoken, pyarrow.parquet as pq\nenc = tiktoken.get_encoding('cl100k_base')\nt = {c: 0 for c in ('question', 'context', 'answer')}\nfor f in sorted(glob.glob('/app/qa/*.parquet')):\n    tb = pq.read_table(f)\n    for c in t:\n        t[c] += sum(len(enc.encode(x)) for x in tb[c].to_pylist())\nprint(t)\nEOF",
        "{'question': 1302211, 'context': 7665864, 'answer': 908246}",
        0,
        70,
      ).evidence();
      s.run(
        "The context dominates; report it.",
        "echo 7665864 > /app/tokens.txt && cat /app/tokens.txt",
        "7665864",
      ).preFailure();
      return s.fail(
        "The dataset has 7665864 tokens.",
        answerTests(false, "E   assert 7665864 == 9876321"),
        "dataset-token-accounting",
      );
    },
  },
  {
    id: "token-count-code-corpus",
    instruction:
      "How many tokens does the code corpus in /app/corpus.jsonl contain? Use the GPT-2 tokenizer from /app/gpt2/ and count the `content` field of every record (it is the only text field). Write the total number of tokens in the dataset to /app/total.txt.",
    good: () => {
      const s = new Script();
      s.run(
        "Confirm the schema.",
        "head -n1 /app/corpus.jsonl | python3 -c 'import json,sys; print(list(json.loads(sys.stdin.read())))'",
        "['repo', 'path', 'content']",
      );
      s.run(
        "Count tokens of content.",
        "python3 - <<'EOF'\nimport json\nfrom transformers import AutoTokenizer\ntok = AutoTokenizer.from_pretrained('/app/gpt2')\nn = sum(len(tok(json.loads(l)['content'])['input_ids']) for l in open('/app/corpus.jsonl'))\nprint(n)\nEOF",
        "3418874",
        0,
        50,
      ).evidence();
      s.run(
        "Write and double-check the file.",
        "echo 3418874 > /app/total.txt && cat /app/total.txt",
        "3418874",
      );
      return s.pass("The corpus contains 3418874 tokens.", answerTests(true));
    },
  },
);
