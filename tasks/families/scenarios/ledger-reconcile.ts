/** Reconcile a bank export against the internal ledger: matches, missing entries, amount mismatches. */
import { buildTask, phrase, type Assertion } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, cents, pad2 } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

function bankAmount(c: number): string {
  const s = cents(Math.abs(c));
  const [int, frac] = s.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `"${c < 0 ? '-' : ''}${grouped}.${frac}"`;
}

interface Tx {
  ref: string;
  day: string;
  /** Cents, negative for a debit. */
  amount: number;
  memo: string;
}

interface Books {
  month: string;
  txs: Tx[];
  /** References only the bank has, only the ledger has, and the ledger's wrong amount by reference. */
  onlyBank: Set<string>;
  onlyLedger: Set<string>;
  mism: Map<string, number>;
}

export const ledgerReconcile: TaskFamily = {
  name: 'ledger-reconcile',
  category: 'data-processing',
  summary: 'Reconcile bank.csv with ledger.csv (different date/amount formats) and report the differences',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const books = drawBooks(rng);
    const { month, txs, onlyBank, onlyLedger, mism } = books;
    const bank = bankCsv(rng.shuffle(txs.filter((t) => !onlyLedger.has(t.ref))), month);
    const ledger = ledgerCsv(rng.shuffle(txs.filter((t) => !onlyBank.has(t.ref))), month, mism);
    const { summary, mismatchCsv } = reconciliation(books);
    const instruction = phrase(rng, split, INSTRUCTIONS);
    return buildTask(SCENARIO, {
      family: ledgerReconcile,
      difficulty: 'hard',
      split,
      instruction,
      files: { 'bank.csv': bank, 'ledger.csv': ledger },
      solve: SOLVE,
      expected: { 'reconciliation.json': JSON.stringify(summary), 'mismatches.csv': mismatchCsv },
      assertions: assertions(),
      tags: ['reconciliation', 'csv', 'finance'],
    });
  },
};

/** The transactions, then which of them only the bank has, only the ledger has, or the ledger has with another amount. */
function drawBooks(rng: FamilyRng): Books {
  const n = rng.int(12, 30);
  const month = pad2(rng.int(1, 12));
  const txs = Array.from({ length: n }, (_, i) => ({
    ref: `TX${pad2(i)}${rng.int(100, 999)}${String.fromCharCode(65 + rng.int(0, 25))}`,
    day: pad2(rng.int(1, 28)),
    amount: (rng.bool(0.7) ? -1 : 1) * rng.int(100, 500000),
    memo: rng.pick(['rent', 'payroll', 'supplies', 'refund', 'fees', 'travel', 'software']),
  }));
  const onlyBank = new Set(rng.sample(txs, rng.int(1, 3)).map((t) => t.ref));
  const onlyLedger = new Set(
    rng
      .sample(
        txs.filter((t) => !onlyBank.has(t.ref)),
        rng.int(1, 3),
      )
      .map((t) => t.ref),
  );
  const mism = new Map(
    rng
      .sample(
        txs.filter((t) => !onlyBank.has(t.ref) && !onlyLedger.has(t.ref)),
        rng.int(1, 3),
      )
      .map((t) => [t.ref, t.amount + rng.pick([-1, 1]) * rng.int(1, 5000)]),
  );
  return { month, txs, onlyBank, onlyLedger, mism };
}

/** The bank's export: DD/MM/YYYY dates and quoted, grouped amounts, in the drawn order. */
function bankCsv(txs: Tx[], month: string): string {
  return (
    [
      'date,reference,description,amount',
      ...txs.map((t) => `${t.day}/${month}/2024,${t.ref},${t.memo.toUpperCase()},${bankAmount(t.amount)}`),
    ].join('\n') + '\n'
  );
}

/** The ledger: lower-case references, ISO dates and integer cents (the wrong amount for a mismatch). */
function ledgerCsv(txs: Tx[], month: string, mism: Map<string, number>): string {
  return (
    [
      'ref;posted;amount_cents;memo',
      ...txs.map((t) => `${t.ref.toLowerCase()};2024-${month}-${t.day};${mism.get(t.ref) ?? t.amount};${t.memo}`),
    ].join('\n') + '\n'
  );
}

/** The expected reconciliation.json and mismatches.csv. */
function reconciliation({ txs, onlyBank, onlyLedger, mism }: Books): {
  summary: Record<string, unknown>;
  mismatchCsv: string;
} {
  const matched = txs.filter((t) => !onlyBank.has(t.ref) && !onlyLedger.has(t.ref));
  const diffs = [...mism.entries()].sort((a, b) => byCodePoint(a[0], b[0]));
  const byRef = new Map(txs.map((t) => [t.ref, t]));
  const summary = {
    matched: matched.length - mism.size,
    amount_mismatches: mism.size,
    missing_in_ledger: [...onlyBank].sort(byCodePoint),
    missing_in_bank: [...onlyLedger].sort(byCodePoint),
    bank_total_cents: txs.filter((t) => !onlyLedger.has(t.ref)).reduce((s, t) => s + t.amount, 0),
  };
  const mismatchCsv =
    [
      'reference,bank_cents,ledger_cents,difference_cents',
      ...diffs.map(([ref, l]) => `${ref},${byRef.get(ref)!.amount},${l},${byRef.get(ref)!.amount - l}`),
    ].join('\n') + '\n';
  return { summary, mismatchCsv };
}

const FORMATS =
  'bank.csv is comma-separated with DD/MM/YYYY dates, upper-case references and quoted amounts like "-1,234.50"; ledger.csv is semicolon-separated with lower-case refs and integer cents';

/** The instruction's three phrasings. */
const INSTRUCTIONS = [
  `Reconcile /app/bank.csv with /app/ledger.csv (${FORMATS}). Transactions match by reference (case-insensitive). Write /app/reconciliation.json with \`matched\` (references present in both with equal amounts), \`amount_mismatches\` (present in both, different amounts), \`missing_in_ledger\` and \`missing_in_bank\` (sorted upper-case references), and \`bank_total_cents\` (sum of all bank amounts in cents). Also write /app/mismatches.csv: header \`reference,bank_cents,ledger_cents,difference_cents\` (difference = bank - ledger), one row per mismatch sorted by reference.`,
  `Month-end close: compare the bank export /app/bank.csv against our ledger /app/ledger.csv. Note: ${FORMATS}. Produce /app/reconciliation.json = {"matched": n, "amount_mismatches": n, "missing_in_ledger": [REFS], "missing_in_bank": [REFS], "bank_total_cents": int} (reference lists upper-case, sorted) and /app/mismatches.csv (reference,bank_cents,ledger_cents,difference_cents with difference = bank minus ledger; sorted by reference).`,
  `The bank statement (/app/bank.csv) and the ledger (/app/ledger.csv) disagree. ${FORMATS}. Match by reference ignoring case and report: /app/reconciliation.json with matched, amount_mismatches, missing_in_ledger, missing_in_bank (sorted upper-case lists), bank_total_cents; /app/mismatches.csv with columns reference,bank_cents,ledger_cents,difference_cents (bank - ledger) ordered by reference.`,
];

/** The oracle: parse both files in Python and compare by upper-case reference. */
const SOLVE = `head -3 bank.csv ledger.csv
python3 - <<'PY'
import csv, json
from decimal import Decimal
bank = {r["reference"].upper(): int(Decimal(r["amount"].replace(",", "")) * 100) for r in csv.DictReader(open("bank.csv"))}
ledger = {r["ref"].upper(): int(r["amount_cents"]) for r in csv.DictReader(open("ledger.csv"), delimiter=";")}
both = sorted(set(bank) & set(ledger))
mism = [r for r in both if bank[r] != ledger[r]]
json.dump({"matched": len(both) - len(mism), "amount_mismatches": len(mism),
           "missing_in_ledger": sorted(set(bank) - set(ledger)), "missing_in_bank": sorted(set(ledger) - set(bank)),
           "bank_total_cents": sum(bank.values())}, open("reconciliation.json", "w"), indent=2)
with open("mismatches.csv", "w") as f:
    f.write("reference,bank_cents,ledger_cents,difference_cents\\n")
    for r in mism:
        f.write(f"{r},{bank[r]},{ledger[r]},{bank[r] - ledger[r]}\\n")
PY
cat reconciliation.json mismatches.csv`;

/** The checks: the counts, the missing lists, the bank total and the mismatch rows. */
function assertions(): Assertion[] {
  return [
    check(
      'match counts',
      'json',
      'reconciliation.json',
      '/tests/expected/reconciliation.json',
      'matched,amount_mismatches',
    ),
    check(
      'missing on either side',
      'json',
      'reconciliation.json',
      '/tests/expected/reconciliation.json',
      'missing_in_ledger,missing_in_bank',
    ),
    check(
      'bank total parsed from formatted amounts',
      'json',
      'reconciliation.json',
      '/tests/expected/reconciliation.json',
      'bank_total_cents',
    ),
    check('mismatch rows', 'same', 'mismatches.csv', '/tests/expected/mismatches.csv'),
  ];
}
