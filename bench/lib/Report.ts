import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { repoRoot } from "./Processes.js"

export interface Row {
  readonly suite: string
  readonly case: string
  readonly backend: string
  readonly metrics: Record<string, number | string>
}

const format = (value: number | string) =>
  typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(2)) : value

/** One table per suite, each with the metrics its rows have. */
export const tables = (rows: ReadonlyArray<Row>): string =>
  [...new Set(rows.map((r) => r.suite))]
    .map((suite) => `### ${suite}\n\n${table(rows.filter((r) => r.suite === suite))}`)
    .join("\n\n")

export const table = (rows: ReadonlyArray<Row>): string => {
  const metricNames = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))]
  const header = ["case", "backend", ...metricNames]
  const body = rows.map((
    r
  ) => [r.case, r.backend, ...metricNames.map((m) => r.metrics[m] === undefined ? "" : format(r.metrics[m]!))])
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...body.map((cells) => `| ${cells.join(" | ")} |`)
  ].join("\n")
}

export const machine = () =>
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${
    Math.round(os.totalmem() / 2 ** 30)
  } GiB, Node ${process.version}`

/** Writes the results next to the benchmarks: a Markdown table and the raw numbers. */
export const write = (
  rows: ReadonlyArray<Row>,
  notes: ReadonlyArray<string>,
  name = "latest",
  date = new Date().toISOString()
) => {
  const dir = path.join(repoRoot, "bench", "results")
  fs.mkdirSync(dir, { recursive: true })
  const markdown = [
    "# Benchmark results",
    "",
    `Run ${date} on ${machine()}. Reproduce with \`npm run bench\` (set \`DATABASE_URL\` for the PostgreSQL rows).`,
    "",
    tables(rows),
    "",
    ...notes.map((n) => `- ${n}`),
    ""
  ].join("\n")
  fs.writeFileSync(path.join(dir, `${name}.md`), markdown)
  fs.writeFileSync(
    path.join(dir, `${name}.json`),
    JSON.stringify({ date, machine: machine(), rows, notes }, null, 2) + "\n"
  )
  return markdown
}
