/**
 * The production topology on this machine: one `migrate` run, then runners, the three `serve`
 * services and the `serve gateway`, each a process of the real CLI (`main.ts`) on its own port,
 * all on one PostgreSQL database, with a Chroma server for knowledge bases. `npm run cluster:local`
 * runs it (`ClusterLocalMain.ts`); the failover tests and the cluster benchmark start the same
 * processes through `start`.
 *
 * - `start` is scoped: it checks that nothing listens on the ports it is to use, spawns every
 *   process (each in a process group of its own, so a Ctrl-C in the terminal reaches the supervisor
 *   only and the stop keeps its order), waits until each is ready, and answers with their handles.
 *   Ready means proven to be that child: the services' and the gateway's `/readyz` answer 200 with
 *   the child's pid (whatever else answers on the port is not it); a runner's log says it listens (it
 *   exits if it cannot bind its port) and its metrics `/healthz` answers with its pid; Chroma's log
 *   says its server answers (its process checks the port first).
 * - Any process that exits before every one is ready, ready already or not, fails `start` at once:
 *   the error names it, its exit and its log file, with the end of that log; the scope's close then
 *   stops the others as below.
 * - Closing the scope stops them front to back: the gateway, then the services, then the runners,
 *   then Chroma; each group with SIGTERM, waited for up to `stopTimeout`, then SIGKILL. Should the
 *   supervising process exit without closing the scope, every child still running is sent SIGKILL.
 * - Every process writes stdout and stderr to `<logsDir>/<name>.log`.
 */
import { type ServiceName, ServiceNames } from "@voiceagent/domain/Gateway"
import { bindError, freePort } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

import { RUNNER_NODE_FLAGS } from "@voiceagent/server/NodeFlags"

const sourceDir = path.dirname(fileURLToPath(import.meta.url))
export const repoRoot = path.resolve(sourceDir, "../../..")
const serverSourceDir = path.join(repoRoot, "packages/server/src")
const MAIN = path.join(serverSourceDir, "main.ts")
const CHROMA_MAIN = path.join(sourceDir, "ClusterLocalChroma.ts")

export interface ClusterLocalOptions {
  /** The PostgreSQL database every process shares. */
  readonly databaseUrl: string
  /** Where the logs go (created if missing); also holds Chroma's data unless `chromaDataDir` is given. */
  readonly logsDir: string
  /** Runner processes (default 2). */
  readonly runners?: number | undefined
  /** HTTP services (default all three). */
  readonly services?: ReadonlyArray<ServiceName> | undefined
  /** The gateway in front of them (default true; needs all three services). */
  readonly gateway?: boolean | undefined
  /** One `migrate` run before anything else (default true). */
  readonly migrate?: boolean | undefined
  /** "embedded" (default): a Chroma server of its own; "none": no CHROMA_URL; or a server's URL. */
  readonly chroma?: "embedded" | "none" | { readonly url: string } | undefined
  /** Chroma's data directory (default `<logsDir>/chroma`). */
  readonly chromaDataDir?: string | undefined
  /** The interface every server binds (default 127.0.0.1). */
  readonly host?: string | undefined
  /**
   * Ports from here: gateway +0, platform-core +1, comms +2, campaign +3, Chroma +4, runner n
   * +10+n. Unset: free ports.
   */
  readonly basePort?: number | undefined
  /** The JWT secret every service shares (`JWT_SECRET`); unset: the environment's, else a random one. */
  readonly jwtSecret?: string | undefined
  /** Variables for every process (an undefined value removes an inherited one). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** Variables for runner `index` (0-based) only. */
  readonly runnerEnv?: ((index: number) => Readonly<Record<string, string | undefined>>) | undefined
  /** How long every process together may take to be ready (default 3 minutes). */
  readonly readyTimeout?: Duration.DurationInput | undefined
  /** How long a stopping process may take after SIGTERM before SIGKILL (default 20 seconds). */
  readonly stopTimeout?: Duration.DurationInput | undefined
  /** Progress lines while starting and stopping (default: none). */
  readonly report?: ((line: string) => void) | undefined
}

export interface ExitStatus {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export const describeExit = (status: ExitStatus): string =>
  status.signal !== null ? `signal ${status.signal}` : status.code !== null ? `code ${status.code}` : "a spawn failure"

export interface RoleProcess {
  /** e.g. `runner-1`, `platform-core`, `gateway`, `chroma`, `migrate`. */
  readonly name: string
  /** What it runs, e.g. `runner`, `serve comms`. */
  readonly role: string
  /** `http://host:port` for HTTP servers, `host:port` for runners. */
  readonly address: string
  readonly port: number | undefined
  readonly pid: number
  readonly logFile: string
  /** Its exit, once it has exited. */
  readonly exitStatus: () => ExitStatus | undefined
  /** Resumes when it has exited. */
  readonly exited: Effect.Effect<ExitStatus>
  /** Sends a signal (nothing if it has exited). */
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<void>
  /** SIGTERM (or `signal`), then SIGKILL after `timeout` (default the cluster's `stopTimeout`). */
  readonly stop: (signal?: NodeJS.Signals, timeout?: Duration.DurationInput) => Effect.Effect<ExitStatus>
  /** What it has written so far. */
  readonly log: Effect.Effect<string>
}

export interface ClusterLocal {
  readonly runners: ReadonlyArray<RoleProcess>
  readonly services: Partial<Record<ServiceName, RoleProcess>>
  readonly gateway: RoleProcess | undefined
  readonly chroma: RoleProcess | undefined
  /** The migration run, exited. */
  readonly migrate: RoleProcess | undefined
  /** Every process started, in start order (`migrate` first). */
  readonly processes: ReadonlyArray<RoleProcess>
  readonly gatewayUrl: string | undefined
  readonly chromaUrl: string | undefined
  readonly logsDir: string
  /** Whether the scope has begun closing (processes exiting then are being stopped). */
  readonly stopping: () => boolean
}

export class ClusterLocalError extends Data.TaggedError("ClusterLocalError")<{
  readonly message: string
  /** The last lines of the process's log, if one is to blame. */
  readonly log: string
}> {}

// ---------------------------------------------------------------------------
// Ports
// ---------------------------------------------------------------------------

const SERVICE_PORT: Record<ServiceName, string> = {
  "platform-core": "PLATFORM_CORE_PORT",
  comms: "COMMS_PORT",
  campaign: "CAMPAIGN_PORT"
}

const SERVICE_URL: Record<ServiceName, string> = {
  "platform-core": "PLATFORM_CORE_URL",
  comms: "COMMS_URL",
  campaign: "CAMPAIGN_URL"
}

/** Variables this module sets per process: inherited values would put two processes on one port. */
const CONTROLLED = [
  "DATABASE_URL",
  "JWT_SECRET",
  "HOST",
  "PORT",
  ...Object.values(SERVICE_PORT),
  ...Object.values(SERVICE_URL),
  "RUNNER_HOST",
  "RUNNER_PORT",
  "RUNNER_LISTEN_HOST",
  "METRICS_PORT",
  "MEDIA_PORT",
  "MEDIA_PUBLIC_URL",
  "CHROMA_URL",
  "CHROMA_PORT",
  "CHROMA_DATA_DIR"
]

// ---------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------

/** Children still running, sent SIGKILL should this process exit with them. */
const live = new Set<ChildProcess.ChildProcess>()
let exitHookInstalled = false
const installExitHook = () => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on("exit", () => {
    for (const child of live) {
      try {
        child.kill("SIGKILL")
      } catch {
        // gone
      }
    }
  })
}

const tail = (text: string, lines = 40) => text.split("\n").slice(-lines).join("\n")

const readLog = (file: string) => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return ""
  }
}

interface Spec {
  readonly name: string
  readonly role: string
  readonly script: string
  readonly args: ReadonlyArray<string>
  /** Node's flags before the script (V8's, for the runners: `RUNNER_NODE_FLAGS`). */
  readonly nodeFlags?: ReadonlyArray<string> | undefined
  readonly address: string
  readonly port: number | undefined
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A process that runs until stopped, and how to tell it is ready. */
interface ServerSpec extends Spec {
  readonly ready: Readiness
}

type Readiness =
  /** Its log matches (Chroma's process, once its server answers the heartbeat). */
  | { readonly _tag: "Log"; readonly pattern: RegExp }
  /** The URL (`/readyz`) answers 200 with the child's pid. */
  | { readonly _tag: "Http"; readonly url: string }
  /** Its log matches, and `/healthz` at the URL the match captures answers 200 with the child's pid. */
  | { readonly _tag: "LogThenHttp"; readonly pattern: RegExp }

const spawnProcess = (spec: Spec, logsDir: string, defaultStopTimeout: Duration.Duration): RoleProcess => {
  const logFile = path.join(logsDir, `${spec.name}.log`)
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(spec.env)) if (value !== undefined) env[name] = value
  const fd = fs.openSync(logFile, "w")
  let child: ChildProcess.ChildProcess
  try {
    child = ChildProcess.spawn(process.execPath, [
      ...(spec.nodeFlags ?? []),
      "--import",
      "tsx",
      spec.script,
      ...spec.args
    ], {
      cwd: repoRoot,
      env,
      stdio: ["ignore", fd, fd],
      detached: true
    })
  } finally {
    fs.closeSync(fd)
  }
  let status: ExitStatus | undefined
  const exit = new Promise<ExitStatus>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child)
      status = { code, signal }
      resolve(status)
    })
    child.once("error", (error) => {
      if (child.pid !== undefined) return
      fs.appendFileSync(logFile, `[cluster-local] could not start: ${error.message}\n`)
      status = { code: null, signal: null }
      resolve(status)
    })
  })
  if (child.pid !== undefined) live.add(child)
  const exited = Effect.promise(() => exit)
  const kill = (signal: NodeJS.Signals) =>
    Effect.sync(() => {
      if (status === undefined && child.pid !== undefined) child.kill(signal)
    })
  return {
    name: spec.name,
    role: spec.role,
    address: spec.address,
    port: spec.port,
    pid: child.pid ?? -1,
    logFile,
    exitStatus: () => status,
    exited,
    kill,
    stop: (signal = "SIGTERM", timeout = defaultStopTimeout) =>
      Effect.gen(function*() {
        if (status !== undefined) return status
        yield* kill(signal)
        // finalizers are uninterruptible: without `interruptible` the timeout would wait for the exit
        const inTime = yield* exited.pipe(Effect.interruptible, Effect.timeout(timeout), Effect.option)
        if (Option.isSome(inTime)) return inTime.value
        yield* kill("SIGKILL")
        return yield* exited
      }),
    log: Effect.sync(() => readLog(logFile))
  }
}

/** Whether `url` answers 200 with a JSON body naming process `pid` (what `/readyz` and `/healthz` say). */
const answersAs = (url: string, pid: number) =>
  Effect.tryPromise(async (signal) => {
    const response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]) })
    const text = await response.text()
    if (response.status !== 200) return false
    const body: unknown = JSON.parse(text)
    return typeof body === "object" && body !== null && "pid" in body && body.pid === pid
  }).pipe(Effect.orElseSucceed(() => false))

const exitedEarly = (process: RoleProcess, status: ExitStatus) =>
  Effect.flatMap(process.log, (log) =>
    Effect.fail(
      new ClusterLocalError({
        message:
          `${process.name} (${process.role}, pid ${process.pid}) exited with ${
            describeExit(status)
          } before it was ready; ` +
          `its log: ${displayPath(process.logFile)}`,
        log: tail(log)
      })
    ))

/** Resumes once `process` has exited with code 0; fails on any other exit. */
const waitSuccess = (process: RoleProcess) =>
  process.exited.pipe(
    Effect.flatMap((status) =>
      status.code === 0 ? Effect.void : Effect.flatMap(process.log, (log) =>
        Effect.fail(
          new ClusterLocalError({
            message: `${process.name} failed (${describeExit(status)}); its log: ${displayPath(process.logFile)}`,
            log: tail(log)
          })
        ))
    )
  )

/** Polls until `process` is ready (see `Readiness`); never resumes if it is not. */
const untilReady = (process: RoleProcess, ready: Readiness) => {
  const check: Effect.Effect<boolean> = ready._tag === "Log"
    ? Effect.map(process.log, (log) => ready.pattern.test(log))
    : ready._tag === "Http"
    ? answersAs(ready.url, process.pid)
    : Effect.flatMap(process.log, (log) => {
      const url = log.match(ready.pattern)?.[1]
      return url === undefined ? Effect.succeed(false) : answersAs(`${url}/healthz`, process.pid)
    })
  return Effect.repeat(check, { schedule: Schedule.spaced("100 millis"), until: (ok) => ok }).pipe(Effect.asVoid)
}

/**
 * Resumes once every process is ready. Fails at once when one of them exits first, whether it was
 * ready already or not (a process that has exited is never ready), or when `timeout` passes.
 */
const waitAllReady = (
  processes: ReadonlyArray<RoleProcess>,
  readiness: ReadonlyArray<Readiness>,
  timeout: Duration.Duration
): Effect.Effect<void, ClusterLocalError> => {
  if (processes.length === 0) return Effect.void
  const firstExit = Effect.raceAll(processes.map((p) => Effect.map(p.exited, (status) => [p, status] as const))).pipe(
    Effect.flatMap(([p, status]) => exitedEarly(p, status))
  )
  // an exit in the same instant as the last answer
  const noneExited = Effect.suspend(() => {
    const gone = processes.find((p) => p.exitStatus() !== undefined)
    return gone === undefined ? Effect.void : exitedEarly(gone, gone.exitStatus()!)
  })
  return Effect.raceFirst(
    Effect.forEach(processes, (p, i) => untilReady(p, readiness[i]!), { concurrency: "unbounded", discard: true }),
    firstExit
  ).pipe(
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new ClusterLocalError({
          message: `not ready within ${Duration.format(timeout)}: ${
            processes.filter((p) => p.exitStatus() === undefined).map((p) => p.name).join(", ")
          }`,
          log: ""
        })
    }),
    Effect.zipRight(noneExited)
  )
}

/** Stops every process of a group at once; resumes when all have exited. */
const stopGroup = (processes: ReadonlyArray<RoleProcess>, report: (line: string) => void) =>
  Effect.gen(function*() {
    const running = processes.filter((p) => p.exitStatus() === undefined)
    if (running.length === 0) return
    const started = Date.now()
    const statuses = yield* Effect.forEach(running, (p) => p.stop(), { concurrency: "unbounded" })
    report(
      `  stopped ${running.map((p, i) => `${p.name} (${describeExit(statuses[i]!)})`).join(", ")} in ${
        Date.now() - started
      } ms`
    )
  })

/** Spawns a group of processes with the scope, stopped together when it closes. */
const spawnGroup = (
  specs: ReadonlyArray<Spec>,
  logsDir: string,
  stopTimeout: Duration.Duration,
  report: (line: string) => void
): Effect.Effect<ReadonlyArray<RoleProcess>, never, Scope.Scope> =>
  specs.length === 0 ? Effect.succeed([]) : Effect.acquireRelease(
    Effect.sync(() => specs.map((spec) => spawnProcess(spec, logsDir, stopTimeout))),
    (processes) => stopGroup(processes, report)
  )

// ---------------------------------------------------------------------------
// The topology
// ---------------------------------------------------------------------------

export const start = (options: ClusterLocalOptions): Effect.Effect<ClusterLocal, ClusterLocalError, Scope.Scope> =>
  Effect.gen(function*() {
    installExitHook()
    const report = options.report ?? (() => undefined)
    const host = options.host ?? "127.0.0.1"
    const runnerCount = options.runners ?? 2
    const services = options.services ?? ServiceNames
    const withGateway = options.gateway ?? true
    const chromaMode = options.chroma ?? "embedded"
    const stopTimeout = Duration.decode(options.stopTimeout ?? "20 seconds")
    const logsDir = path.resolve(options.logsDir)
    fs.mkdirSync(logsDir, { recursive: true })
    if (withGateway && services.length !== ServiceNames.length) {
      return yield* new ClusterLocalError({ message: "the gateway needs all three services", log: "" })
    }

    const port = (offset: number) =>
      options.basePort === undefined ? Effect.orDie(freePort(host)) : Effect.succeed(options.basePort + offset)
    const gatewayPort = withGateway ? yield* port(0) : undefined
    const servicePorts = new Map<ServiceName, number>()
    for (const service of services) servicePorts.set(service, yield* port(1 + ServiceNames.indexOf(service)))
    const chromaPort = chromaMode === "embedded" ? yield* port(4) : undefined
    const runnerPorts: Array<number> = []
    for (let i = 0; i < runnerCount; i++) runnerPorts.push(yield* port(10 + i))
    const urlOf = (p: number) => `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${p}`
    const gatewayUrl = gatewayPort === undefined ? undefined : urlOf(gatewayPort)
    const chromaUrl = chromaPort !== undefined
      ? `http://127.0.0.1:${chromaPort}`
      : typeof chromaMode === "object"
      ? chromaMode.url
      : undefined

    // Another process listening on one of them would answer in place of the child, which would exit
    // with EADDRINUSE: say so before starting anything. (Readiness is still checked against each
    // child's pid: a port can be taken between this check and the child's bind.)
    const planned: ReadonlyArray<readonly [name: string, host: string, port: number]> = [
      ...(gatewayPort === undefined ? [] : [["gateway", host, gatewayPort] as const]),
      ...services.map((service) => [service, host, servicePorts.get(service)!] as const),
      ...(chromaPort === undefined ? [] : [["chroma", "127.0.0.1", chromaPort] as const]),
      ...runnerPorts.map((runnerPort, i) => [`runner-${i + 1}`, host, runnerPort] as const)
    ]
    const unavailable = (yield* Effect.forEach(planned, ([name, on, p]) =>
      Effect.map(bindError(on, p), (error) =>
        error === undefined ? [] : [`${on}:${p} for ${name} (${error})`]))).flat()
    if (unavailable.length > 0) {
      return yield* new ClusterLocalError({
        message: `cannot listen on ${unavailable.join(", ")}: another process holds ${
          unavailable.length === 1 ? "it" : "them"
        }; stop it or choose other ports`,
        log: ""
      })
    }

    const inherited: Record<string, string | undefined> = { ...process.env }
    for (const name of CONTROLLED) {
      delete inherited[name]
    }
    const common: Record<string, string | undefined> = {
      ...inherited,
      DATABASE_URL: options.databaseUrl,
      JWT_SECRET: options.jwtSecret ?? process.env["JWT_SECRET"] ?? randomSecret(),
      HOST: host,
      CHROMA_URL: chromaUrl,
      ...(gatewayUrl !== undefined && process.env["PUBLIC_URL"] === undefined ? { PUBLIC_URL: gatewayUrl } : {}),
      ...options.env
    }

    const processes: Array<RoleProcess> = []
    let migrateProcess: RoleProcess | undefined
    if (options.migrate ?? true) {
      report("  migrate: applying the migrations")
      const [migrate] = yield* spawnGroup(
        [{
          name: "migrate",
          role: "migrate",
          script: MAIN,
          args: ["migrate"],
          address: "-",
          port: undefined,
          env: common
        }],
        logsDir,
        stopTimeout,
        report
      )
      migrateProcess = migrate!
      processes.push(migrate!)
      yield* waitSuccess(migrate!)
    }

    const specs = {
      chroma: chromaPort === undefined ? [] : [
        {
          name: "chroma",
          role: "chroma",
          script: CHROMA_MAIN,
          args: [],
          address: chromaUrl!,
          port: chromaPort,
          env: {
            ...common,
            CHROMA_PORT: String(chromaPort),
            CHROMA_DATA_DIR: path.resolve(options.chromaDataDir ?? path.join(logsDir, "chroma"))
          },
          // its process checks that the port is free, starts the server, and says so once the heartbeat answers
          ready: { _tag: "Log", pattern: /Chroma listening on/ }
        } satisfies ServerSpec
      ],
      runners: runnerPorts.map((runnerPort, i): ServerSpec => ({
        name: `runner-${i + 1}`,
        role: "runner",
        script: MAIN,
        args: ["runner"],
        nodeFlags: RUNNER_NODE_FLAGS,
        address: `${host}:${runnerPort}`,
        port: runnerPort,
        env: {
          ...common,
          RUNNER_HOST: host,
          RUNNER_PORT: String(runnerPort),
          METRICS_PORT: "0",
          // each runner takes its calls' media streams on a port of its own
          MEDIA_PORT: "0",
          ...options.runnerEnv?.(i)
        },
        // written once its port is bound (it exits otherwise), with where its metrics server listens
        ready: { _tag: "LogThenHttp", pattern: /Runner listening on .*metrics and \/healthz at (http:\/\/[^\s;]+)/ }
      })),
      services: services.map((service): ServerSpec => ({
        name: service,
        role: `serve ${service}`,
        script: MAIN,
        args: ["serve", service],
        address: urlOf(servicePorts.get(service)!),
        port: servicePorts.get(service)!,
        env: { ...common, [SERVICE_PORT[service]]: String(servicePorts.get(service)!) },
        ready: { _tag: "Http", url: `${urlOf(servicePorts.get(service)!)}/readyz` }
      })),
      gateway: gatewayPort === undefined ? [] : [
        {
          name: "gateway",
          role: "serve gateway",
          script: MAIN,
          args: ["serve", "gateway"],
          address: gatewayUrl!,
          port: gatewayPort,
          env: {
            ...common,
            PORT: String(gatewayPort),
            ...Object.fromEntries(ServiceNames.map((s) => [SERVICE_URL[s], urlOf(servicePorts.get(s)!)]))
          },
          ready: { _tag: "Http", url: `${gatewayUrl}/readyz` }
        } satisfies ServerSpec
      ]
    }

    // Started together, stopped front to back (finalizers run in reverse): gateway, services, runners, Chroma.
    const chroma = yield* spawnGroup(specs.chroma, logsDir, stopTimeout, report)
    const runners = yield* spawnGroup(specs.runners, logsDir, stopTimeout, report)
    const serviceProcesses = yield* spawnGroup(specs.services, logsDir, stopTimeout, report)
    const gateway = yield* spawnGroup(specs.gateway, logsDir, stopTimeout, report)
    let stopping = false
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        stopping = true
        report("  stopping: the gateway, then the services, then the runners, then Chroma")
      })
    )
    const started = [...chroma, ...runners, ...serviceProcesses, ...gateway]
    processes.push(...started)
    const allSpecs = [...specs.chroma, ...specs.runners, ...specs.services, ...specs.gateway]
    yield* waitAllReady(
      started,
      allSpecs.map((spec) =>
        spec.ready
      ),
      Duration.decode(options.readyTimeout ?? "3 minutes")
    )

    return {
      runners,
      services: Object.fromEntries(serviceProcesses.map((p, i) => [services[i]!, p])),
      gateway: gateway[0],
      chroma: chroma[0],
      migrate: migrateProcess,
      processes,
      gatewayUrl,
      chromaUrl,
      logsDir,
      stopping: () =>
        stopping
    } satisfies ClusterLocal
  })

const randomSecret = () => crypto.randomBytes(36).toString("base64url")

/** A path relative to `cwd` when it lies inside it, else absolute. */
export const displayPath = (file: string, cwd = process.cwd()): string => {
  const relative = path.relative(cwd, file)
  return relative === "" ? "." : relative.startsWith("..") || path.isAbsolute(relative) ? path.resolve(file) : relative
}

/** The processes as a table: name, role, address, pid, log file. */
export const table = (cluster: ClusterLocal, cwd = process.cwd()): string => {
  const rows = [
    ["NAME", "ROLE", "ADDRESS", "PID", "LOG"],
    ...cluster.processes.map((p) => {
      const status = p.exitStatus()
      return [
        p.name,
        p.role,
        p.address,
        String(p.pid),
        `${displayPath(p.logFile, cwd)}${status === undefined ? "" : ` (exited, ${describeExit(status)})`}`
      ]
    })
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ")}`.trimEnd()).join(
    "\n"
  )
}
