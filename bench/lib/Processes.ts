/** Child processes for benchmarks: the real CLI, or a baseline server, on free ports. */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url))

export interface Running {
  readonly child: ChildProcess
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  readonly stop: () => Promise<void>
}

export const spawnTs = (
  script: string,
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  extraNodeFlags: ReadonlyArray<string> = []
): Running => {
  const nodeFlags = (process.env["BENCH_NODE_FLAGS"] ?? "").split(" ").filter((f) => f !== "")
  // An undefined value removes the variable: the bench's own DATABASE_URL must not leak into PGlite runs.
  const merged: Record<string, string | undefined> = { ...process.env, ...env }
  for (const name of Object.keys(merged)) if (merged[name] === undefined) delete merged[name]
  const child = spawn(process.execPath, [
    ...nodeFlags,
    "--import",
    "tsx",
    ...extraNodeFlags,
    path.join(repoRoot, script),
    ...args
  ], {
    cwd: repoRoot,
    env: merged as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (c) => (output += c))
  child.stderr!.on("data", (c) => (output += c))
  let stopping = false
  const exited = new Promise<void>((resolve) =>
    child.on("exit", (code, signal) => {
      // a process that dies under the bench says why here (its output is otherwise never shown)
      if (!stopping) {
        console.error(`${script} exited (code ${code}, signal ${signal}); its last output:\n${output.slice(-4000)}`)
      }
      resolve()
    })
  )
  return {
    child,
    output: () => output,
    waitFor: (pattern, timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now()
        const poll = () => {
          const match = output.match(pattern)
          if (match) return resolve(match)
          if (child.exitCode !== null) return reject(new Error(`${script} exited before ${pattern}:\n${output}`))
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}:\n${output}`))
          setTimeout(poll, 50)
        }
        poll()
      }),
    stop: async () => {
      stopping = true
      if (child.exitCode === null) child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
      await exited
      clearTimeout(timer)
    }
  }
}

/** Node flags that let `probeMemory` and `probeStatements` read a process's internals (see MemoryProbe.ts). */
export const memoryProbeFlags = ["--expose-gc", "--import", path.join(repoRoot, "bench/lib/MemoryProbe.ts")]

/** Sends SIGUSR2 to a process started with `memoryProbeFlags` and reads the line it answers with. */
const probe = async (running: Running): Promise<Record<string, number>> => {
  const count = (running.output().match(/memory-probe \d+/g) ?? []).length
  running.child.kill("SIGUSR2")
  const [line] = await running.waitFor(new RegExp(`memory-probe ${count + 1} [^\n]*\n`), 30_000)
  return Object.fromEntries([...line.matchAll(/(\w+)=(\d+)/g)].map(([, name, value]) => [name!, Number(value)]))
}

/** Asks a process started with `memoryProbeFlags` for its memory after a full collection. */
export const probeMemory = async (running: Running): Promise<{ rss: number; heapUsed: number; external: number }> => {
  const { external, heapUsed, rss } = await probe(running)
  return { rss: rss!, heapUsed: heapUsed!, external: external! }
}

/** SQL statements the process (started with `memoryProbeFlags`) has started so far: `SqlActivity.started()`. */
export const probeStatements = async (running: Running): Promise<number> => {
  const { statements } = await probe(running)
  if (statements === undefined) throw new Error("the memory probe did not report statements")
  return statements
}

/**
 * What a process (started with `memoryProbeFlags`) has used so far: its SQL statements and its CPU
 * time (user + system, all its threads), and the CPU time of every PostgreSQL server process on this
 * machine (its backends do the statements' work; zero where none runs here).
 */
export const probeWork = async (
  running: Running
): Promise<{ statements: number; cpuMicros: number; postgresCpuMicros: number }> => {
  const { cpuMicros, statements } = await probe(running)
  if (statements === undefined || cpuMicros === undefined) {
    throw new Error("the memory probe did not report statements and CPU")
  }
  return { statements, cpuMicros, postgresCpuMicros: postgresCpuMicros() }
}

/** utime + stime of every process named `postgres` (/proc; clock ticks of 10 ms), in µs. */
const postgresCpuMicros = (): number => {
  let ticks = 0
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const close = stat.lastIndexOf(")")
      if (!stat.slice(stat.indexOf("(") + 1, close).startsWith("postgres")) continue
      const fields = stat.slice(close + 2).split(" ")
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // gone meanwhile
    }
  }
  return ticks * 10_000
}

let compiled = false

/**
 * With `BENCH_COMPILED=1` the platform runs the production build (`npm run build`, compiled once per
 * bench run; plain node on packages/*\/dist through the packages' `voiceagent-compiled` exports), as
 * the container image does; otherwise it runs the sources through tsx, as `npm start` does.
 */
const platformScript = (): { readonly script: string; readonly flags: ReadonlyArray<string> } => {
  if (process.env["BENCH_COMPILED"] !== "1") return { script: "packages/server/src/main.ts", flags: [] }
  if (!compiled) {
    execFileSync(process.execPath, [path.join(repoRoot, "scripts/build.mjs")], { cwd: repoRoot, stdio: "inherit" })
    compiled = true
  }
  return { script: "packages/server/dist/main.js", flags: ["--conditions=voiceagent-compiled"] }
}

/** `npm start`'s role, on free ports, with the given data directory or database. */
export const startPlatform = async (env: Record<string, string | undefined>, nodeFlags: ReadonlyArray<string> = []) => {
  const { flags, script } = platformScript()
  const platform = spawnTs(script, ["start"], {
    PORT: "0",
    PLATFORM_CORE_PORT: "0",
    COMMS_PORT: "0",
    CAMPAIGN_PORT: "0",
    MEDIA_PORT: "0",
    LOG_LEVEL: "warn",
    // the load generators send one key (or one address) far above any sane client's limit
    RATE_LIMIT_PER_SECOND: "0",
    RATE_LIMIT_IP_PER_SECOND: "0",
    ...env
  }, [...flags, ...nodeFlags])
  const [, gateway] = await platform.waitFor(/Gateway\s+(http:\/\/\S+)/)
  const [, core] = await platform.waitFor(/platform-core\s+(http:\/\/\S+)/)
  const [, comms] = await platform.waitFor(/comms\s+(http:\/\/\S+)/)
  const [, campaign] = await platform.waitFor(/campaign\s+(http:\/\/\S+)/)
  return { platform, gateway: gateway!, core: core!, comms: comms!, campaign: campaign! }
}
