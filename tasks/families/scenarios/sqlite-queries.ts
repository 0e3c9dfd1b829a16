/** Answer business questions from a SQLite database and add a reporting view to it. */
import { buildTask, phrase, type Assertion } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, CITIES, FIRST_NAMES, LAST_NAMES, pad2, PRODUCTS } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

interface Shop {
  customers: { id: number; name: string; city: string }[];
  products: { id: number; name: string; price: number }[];
  orders: { id: number; customer: number; day: string }[];
  items: { order: number; product: number; qty: number }[];
  /** The month (01-12) the questions ask about; about 40% of the orders fall in it. */
  month: string;
  /** The last product: in no order. */
  unused: { id: number; name: string; price: number };
}

export const sqliteQueries: TaskFamily = {
  name: 'sqlite-queries',
  category: 'data-processing',
  summary: 'Query a SQLite shop database (joins, grouping, anti-joins) into answers.json and add a view',
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { split }) {
    const shop = drawShop(rng);
    const { answers, viewRows } = shopAnswers(shop);
    const instruction = phrase(rng, split, instructions(shop.month));
    return buildTask(SCENARIO, {
      family: sqliteQueries,
      difficulty: 'medium',
      split,
      instruction,
      files: { 'seed.sql': seedSql(shop) },
      setup: 'sqlite3 shop.db < seed.sql\nrm seed.sql',
      requires: ['sqlite3'],
      solve: solveScript(shop.month),
      expected: { 'answers.json': JSON.stringify(answers), 'view.txt': viewRows },
      assertions: assertions(),
      tags: ['sqlite', 'sql', 'joins'],
    });
  },
};

/** The shop, drawn in the family's fixed order: customers, products, the month, then each order and its items. */
function drawShop(rng: FamilyRng): Shop {
  const nc = rng.int(5, 10);
  const customers = Array.from({ length: nc }, (_, i) => ({
    id: i + 1,
    name: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)} ${i + 1}`,
    city: rng.pick(CITIES),
  }));
  const products = rng
    .sample(PRODUCTS, rng.int(5, 9))
    .map((name, i) => ({ id: i + 1, name, price: rng.int(100, 9999) }));
  const orders: { id: number; customer: number; day: string }[] = [];
  const items: { order: number; product: number; qty: number }[] = [];
  const month = pad2(rng.int(1, 12));
  const unused = products[products.length - 1]!;
  for (let o = 1; o <= rng.int(15, 40); o++) {
    orders.push({
      id: o,
      customer: rng.int(1, nc),
      day: `2024-${rng.bool(0.4) ? month : pad2(rng.int(1, 12))}-${pad2(rng.int(1, 28))}`,
    });
    for (const p of rng.sample(products.slice(0, -1), rng.int(1, 3)))
      items.push({ order: o, product: p.id, qty: rng.int(1, 5) });
  }
  return { customers, products, orders, items, month, unused };
}

/** The database as SQL: the schema, then every row. */
function seedSql({ customers, products, orders, items }: Shop): string {
  return (
    [
      'CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);',
      'CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL);',
      'CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), ordered_on TEXT NOT NULL);',
      'CREATE TABLE order_items (order_id INTEGER REFERENCES orders(id), product_id INTEGER REFERENCES products(id), qty INTEGER NOT NULL);',
      ...customers.map((c) => `INSERT INTO customers VALUES (${c.id}, '${c.name}', '${c.city}');`),
      ...products.map((p) => `INSERT INTO products VALUES (${p.id}, '${p.name}', ${p.price});`),
      ...orders.map((o) => `INSERT INTO orders VALUES (${o.id}, ${o.customer}, '${o.day}');`),
      ...items.map((i) => `INSERT INTO order_items VALUES (${i.order}, ${i.product}, ${i.qty});`),
    ].join('\n') + '\n'
  );
}

/** The expected answers.json and the rows of the customer_spend view (name|total_cents, sorted). */
function shopAnswers({ customers, products, orders, items, month, unused }: Shop): {
  answers: Record<string, unknown>;
  viewRows: string;
} {
  const price = new Map(products.map((p) => [p.id, p.price]));
  const spent = new Map<number, number>();
  const distinct = new Map<number, Set<number>>();
  for (const it of items) {
    const c = orders[it.order - 1]!.customer;
    spent.set(c, (spent.get(c) ?? 0) + it.qty * price.get(it.product)!);
    distinct.set(c, (distinct.get(c) ?? new Set()).add(it.product));
  }
  const name = (id: number) => customers[id - 1]!.name;
  const top = [...spent.entries()].sort((a, b) => b[1] - a[1] || byCodePoint(name(a[0]), name(b[0])))[0]!;
  const inMonth = orders.filter((o) => o.day.slice(5, 7) === month).length;
  const maxDistinct = Math.max(...[...distinct.values()].map((s) => s.size));
  const mostVaried = customers
    .filter((c) => (distinct.get(c.id)?.size ?? 0) === maxDistinct)
    .map((c) => c.name)
    .sort(byCodePoint);
  const answers = {
    top_customer: name(top[0]),
    top_customer_cents: top[1],
    orders_in_month: inMonth,
    never_ordered: [unused.name],
    most_distinct_products: mostVaried,
  };
  const viewRows =
    customers
      .map((c) => `${c.name}|${spent.get(c.id) ?? 0}`)
      .sort(byCodePoint)
      .join('\n') + '\n';
  return { answers, viewRows };
}

/** The instruction's three phrasings, around the questions and the view to add. */
function instructions(month: string): string[] {
  const qs = `- \`top_customer\`: the customer name with the highest total spend (Σ qty × price_cents), and \`top_customer_cents\`: that total;
- \`orders_in_month\`: how many orders were placed in month ${month} of 2024;
- \`never_ordered\`: sorted list of product names that appear in no order;
- \`most_distinct_products\`: sorted list of the customer name(s) who bought the largest number of distinct products.`;
  const view =
    'Also create, inside the database, a view `customer_spend(name, total_cents)` with one row per customer (0 for customers without orders).';
  return [
    `/app/shop.db is a SQLite database (tables customers, products, orders, order_items). Answer these questions in /app/answers.json:\n${qs}\n${view}`,
    `Use SQL on /app/shop.db to produce /app/answers.json with the keys below.\n${qs}\n${view}`,
    `Business questions for the shop database /app/shop.db (sqlite3 is installed). Write the answers as JSON to /app/answers.json:\n${qs}\n${view}`,
  ];
}

/** The oracle: create the view, then answer each question with one query. */
function solveScript(month: string): string {
  return `sqlite3 shop.db .schema
sqlite3 shop.db "CREATE VIEW customer_spend AS SELECT c.name AS name, COALESCE(SUM(i.qty * p.price_cents), 0) AS total_cents FROM customers c LEFT JOIN orders o ON o.customer_id = c.id LEFT JOIN order_items i ON i.order_id = o.id LEFT JOIN products p ON p.id = i.product_id GROUP BY c.id;"
python3 - <<'PY'
import json, sqlite3
db = sqlite3.connect("shop.db")
q = lambda sql: db.execute(sql).fetchall()
top = q("SELECT name, total_cents FROM customer_spend ORDER BY total_cents DESC, name LIMIT 1")[0]
month = q("SELECT COUNT(*) FROM orders WHERE substr(ordered_on, 6, 2) = '${month}' AND substr(ordered_on, 1, 4) = '2024'")[0][0]
never = [r[0] for r in q("SELECT name FROM products WHERE id NOT IN (SELECT product_id FROM order_items) ORDER BY name")]
d = q("SELECT c.name, COUNT(DISTINCT i.product_id) n FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id GROUP BY c.id")
m = max(n for _, n in d)
json.dump({"top_customer": top[0], "top_customer_cents": top[1], "orders_in_month": month, "never_ordered": never,
           "most_distinct_products": sorted(n for n, k in d if k == m)}, open("answers.json", "w"), indent=2)
PY
cat answers.json`;
}

/** The checks: each answer against the expected answers.json, and the view's rows. */
function assertions(): Assertion[] {
  return [
    check(
      'top customer and spend',
      'json',
      'answers.json',
      '/tests/expected/answers.json',
      'top_customer,top_customer_cents',
    ),
    check('orders in the month', 'json', 'answers.json', '/tests/expected/answers.json', 'orders_in_month'),
    check('products never ordered', 'json', 'answers.json', '/tests/expected/answers.json', 'never_ordered'),
    check(
      'customers with most distinct products',
      'json',
      'answers.json',
      '/tests/expected/answers.json',
      'most_distinct_products',
    ),
    {
      name: 'customer_spend view',
      run: `sqlite3 shop.db 'SELECT name, total_cents FROM customer_spend' | LC_ALL=C sort | cmp -s - /tests/expected/view.txt`,
    },
  ];
}
