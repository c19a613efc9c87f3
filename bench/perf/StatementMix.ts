/**
 * A preload for a benchmarked platform process (`BENCH_NODE_FLAGS="--import ./bench/perf/StatementMix.ts"`):
 * counts the statements sent through the `pg` driver by their text (literals and parameters folded),
 * and on every SIGUSR2 (the memory probe's signal, so at the bench's own probe points) appends a
 * snapshot of the counts to `$STATEMENT_MIX` (default `statement-mix.jsonl` in the working directory),
 * one JSON line each. `node bench/perf/StatementMix.ts <file> <from> <to> <per>` prints the
 * statements between two snapshots, per unit (a dial), most frequent first.
 */
import * as fs from "node:fs"
import pg from "pg"

const normalise = (text: string) =>
  text.replace(/\s+/g, " ").replace(/'[^']*'/g, "?").replace(/\$\d+/g, "$").replace(/\b\d+\b/g, "N").trim().slice(
    0,
    160
  )

const main = process.argv[1]?.endsWith("StatementMix.ts") === true && process.argv.length > 2

if (main) {
  const [file, from, to, per] = process.argv.slice(2)
  const snapshots = fs.readFileSync(file!, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
  const a: Record<string, number> = snapshots[Number(from)]?.counts ?? {}
  const b: Record<string, number> = snapshots[Number(to)]!.counts
  const unit = Number(per ?? 1)
  const rows = Object.entries(b).map(([text, n]) => [text, (n - (a[text] ?? 0)) / unit] as const).filter(([, n]) =>
    n > 0
  )
  rows.sort((x, y) => y[1] - x[1])
  console.log(`total ${rows.reduce((s, [, n]) => s + n, 0).toFixed(2)} per unit`)
  for (const [text, n] of rows) console.log(`${n.toFixed(2).padStart(8)}  ${text}`)
} else {
  const counts: Record<string, number> = {}
  const original = pg.Client.prototype.query as (...args: Array<any>) => any
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<any>) {
    const q = args[0]
    const text = typeof q === "string" ? q : typeof q?.text === "string" ? q.text : "<submittable>"
    const key = normalise(text)
    counts[key] = (counts[key] ?? 0) + 1
    return original.apply(this, args)
  } as typeof pg.Client.prototype.query
  const out = process.env["STATEMENT_MIX"] ?? "statement-mix.jsonl"
  let seq = 0
  process.on("SIGUSR2", () => {
    fs.appendFileSync(out, JSON.stringify({ seq: seq++, at: Date.now(), counts }) + "\n")
  })
}
