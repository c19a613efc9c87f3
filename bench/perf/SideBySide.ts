/**
 * Two engines under the same load: `GET /api/v1/profile` with an API key on the `start` role of this
 * checkout and of another (`BENCH_BEFORE`: a worktree of the commit to compare with, its node_modules
 * copied in), both started, then both loaded at once (autocannon, 16 connections each, 6 s rounds), so
 * they share whatever else the machine does. Prints each round's req/s and each platform process's
 * CPU time per request (from /proc). `TARGET=gateway,core`, `ROUNDS` (3), `DATABASE_URL` (PGlite without).
 *
 *   BENCH_BEFORE=/work/wt-x-base DATABASE_URL=… npx tsx bench/perf/SideBySide.ts
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { load } from "../lib/Load.js"
import { startPlatform as startAfter } from "../lib/Processes.js"

const beforeRoot = process.env["BENCH_BEFORE"]
if (beforeRoot === undefined) throw new Error("BENCH_BEFORE: the worktree of the engine to compare with")
const { startPlatform: startBefore } = (await import(path.join(beforeRoot, "bench/lib/Processes.ts"))) as {
  readonly startPlatform: typeof startAfter
}

const target = process.env["TARGET"] ?? "gateway"
const rounds = Number(process.env["ROUNDS"] ?? 3)
const db = process.env["DATABASE_URL"]
const up = async (start: typeof startAfter) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-sbs-"))
  const p = await start({ DATABASE_URL: db, DATA_DIR: dataDir })
  const email = `sbs-${Date.now()}-${Math.random()}@example.com`
  const signup: any = await fetch(`${p.gateway}/api/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "benchmark-password", companyName: "Bench" })
  }).then((r) => r.json())
  const key: any = await fetch(`${p.gateway}/api/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${signup.token}` },
    body: JSON.stringify({ name: "b" })
  }).then((r) => r.json())
  const cpu = () => {
    const f = fs.readFileSync(`/proc/${p.platform.child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(f[11]) + Number(f[12])) * 10_000
  }
  return { ...p, dataDir, headers: { authorization: `Bearer ${key.key}` }, cpu }
}
const before = await up(startBefore)
const after = await up(startAfter)
const url = (p: typeof after, t: string) => `${t === "gateway" ? p.gateway : p.core}/api/v1/profile`
for (const t of target.split(",")) {
  await Promise.all(
    [before, after].map((p) => load({ url: url(p, t), headers: p.headers, connections: 16, durationSeconds: 2 }))
  )
  for (let i = 0; i < rounds; i++) {
    const c0 = [before.cpu(), after.cpu()]
    const [b, a] = await Promise.all(
      [before, after].map((p) => load({ url: url(p, t), headers: p.headers, connections: 16, durationSeconds: 6 }))
    )
    const c1 = [before.cpu(), after.cpu()]
    const load1 = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
    console.log(
      `${t} round ${i + 1} load ${load1}: before ${Math.round(b!.requestsPerSecond)} req/s ${
        Math.round((c1[0]! - c0[0]!) / b!.total)
      } µs/req | after ${Math.round(a!.requestsPerSecond)} req/s ${
        Math.round((c1[1]! - c0[1]!) / a!.total)
      } µs/req | non-2xx ${b!.non2xx + b!.errors}/${a!.non2xx + a!.errors}`
    )
  }
}
await Promise.all([before.platform.stop(), after.platform.stop()])
for (const p of [before, after]) fs.rmSync(p.dataDir, { recursive: true, force: true })
