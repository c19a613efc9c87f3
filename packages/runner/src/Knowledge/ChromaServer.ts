/**
 * An embedded Chroma vector database: the `chroma` CLI of the `chromadb` npm package, run as a
 * child process of this one, as a scoped resource.
 *
 * - the server listens on 127.0.0.1 only, on a given port or a free one;
 * - `startChroma` succeeds once `GET /api/v2/heartbeat` answers 200, and fails with the child's last
 *   lines of output if it does not within `startTimeout`;
 * - a supervisor fiber restarts the process (same port, same data directory) whenever it exits
 *   while the scope is open;
 * - closing the scope stops it: SIGTERM, then SIGKILL after 5 seconds. Should this process exit
 *   without closing the scope, the child is sent SIGKILL on the way out;
 * - should this process die without a chance to do even that (SIGKILL, OOM killer), the child keeps
 *   running on the data directory: its pid is kept in `<dataDir>/chroma.pid` while it runs, and the
 *   next start on that directory first kills the process it names, if that is still a `chroma` run
 *   on the same directory (Linux: read from `/proc/<pid>/cmdline`). One server per data directory
 *   at a time is assumed: a start does not wait for, but kills, a server another live process runs.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Net from "node:net"
import * as Path from "node:path"

export interface ChromaServerOptions {
  /** Where Chroma persists its data (created if missing). */
  readonly dataDir: string
  readonly host?: "127.0.0.1" | undefined
  /** 0 or undefined: a free port, picked once and kept across restarts. */
  readonly port?: number | undefined
  /** How long the server may take to answer its heartbeat (default 30 seconds). */
  readonly startTimeout?: Duration.DurationInput | undefined
  /** The pause before a process that exited is started again (default 1 second). */
  readonly restartDelay?: Duration.DurationInput | undefined
}

export interface ChromaServerHandle {
  /** e.g. `http://127.0.0.1:41234` */
  readonly url: string
  readonly port: number
  /** How many times the process was started again after exiting on its own. */
  readonly restarts: Effect.Effect<number>
  /** The running process's id (undefined between an exit and its restart). */
  readonly pid: Effect.Effect<number | undefined>
  /** Whether the heartbeat answers 200 right now. */
  readonly healthy: Effect.Effect<boolean>
}

export class ChromaStartFailed extends Data.TaggedError("ChromaStartFailed")<{
  readonly message: string
  /** The last lines the process wrote. */
  readonly output: string
}> {}

export class ChromaServer extends Context.Tag("Knowledge/ChromaServer")<ChromaServer, ChromaServerHandle>() {
  static layer = (options: ChromaServerOptions): Layer.Layer<ChromaServer, ChromaStartFailed> =>
    Layer.scoped(ChromaServer, startChroma(options))
}

const OUTPUT_LINES = 50
const POLL_INTERVAL = Duration.millis(100)
const HEARTBEAT_TIMEOUT = Duration.seconds(2)
const STOP_GRACE = Duration.seconds(5)
const ORPHAN_EXIT_TIMEOUT = Duration.seconds(10)
export const PID_FILE = "chroma.pid"

/** The last `size` lines written to it. */
class OutputBuffer {
  private readonly lines: Array<string> = []
  private partial = ""
  constructor(private readonly size: number) {}

  write(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/)
    this.partial = parts.pop() ?? ""
    for (const line of parts) this.line(line)
  }

  line(line: string): void {
    this.lines.push(line)
    if (this.lines.length > this.size) this.lines.splice(0, this.lines.length - this.size)
  }

  text(): string {
    return (this.partial === "" ? this.lines : [...this.lines, this.partial]).join("\n")
  }
}

/**
 * The ports the system hands out for outgoing connections and `listen(0)` (Linux's
 * `ip_local_port_range`), or undefined where it cannot be read.
 */
const ephemeralRange = (): readonly [number, number] | undefined => {
  try {
    const [low, high] = Fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(
      Number
    )
    return low !== undefined && high !== undefined && Number.isFinite(low) && Number.isFinite(high)
      ? [low, high]
      : undefined
  } catch {
    return undefined
  }
}

/**
 * A port free right now, for a process started next to name it: chosen at random below the system's
 * ephemeral range and checked by binding it. A port from `listen(0)` is an ephemeral one, and between
 * its check and the child's bind it could go to any process's outgoing connection (a runner of
 * `cluster:local` exited with EADDRINUSE so, once, in CI, beside another test's cluster). Where no such
 * range can be had, `listen(0)`'s.
 */
export const freePort = (host = "127.0.0.1"): Effect.Effect<number, ChromaStartFailed> =>
  Effect.suspend(() => {
    const range = ephemeralRange()
    const low = range === undefined ? 0 : Math.max(1024, range[0] - 12_000)
    if (range === undefined || range[0] - low < 1_000) return ephemeralPort(host)
    const tryOne = (left: number): Effect.Effect<number, ChromaStartFailed> => {
      if (left === 0) return ephemeralPort(host)
      const port = low + Math.floor(Math.random() * (range[0] - low))
      return Effect.flatMap(bindError(host, port), (error) =>
        error === undefined ? Effect.succeed(port) : tryOne(left - 1))
    }
    return tryOne(50)
  })

/** A port free right now from the ephemeral range: bind port 0, read it, close. */
const ephemeralPort = (host: string): Effect.Effect<number, ChromaStartFailed> =>
  Effect.async<number, ChromaStartFailed>((resume) => {
    const server = Net.createServer()
    server.unref()
    server.once(
      "error",
      (error) => resume(Effect.fail(new ChromaStartFailed({ message: `No free port: ${error.message}`, output: "" })))
    )
    server.listen(0, host, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() =>
        resume(
          port > 0
            ? Effect.succeed(port)
            : Effect.fail(new ChromaStartFailed({ message: "No free port: no address", output: "" }))
        )
      )
    })
    return Effect.sync(() => server.close())
  })

/**
 * Why the port cannot be bound right now (`EADDRINUSE`: something listens on it), or undefined when
 * it is free (bind it, close it).
 */
export const bindError = (host: string, port: number): Effect.Effect<string | undefined> =>
  Effect.async<string | undefined>((resume) => {
    const server = Net.createServer()
    server.unref()
    server.once("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code ?? error.message)))
    server.listen(port, host, () => server.close(() => resume(Effect.succeed(undefined))))
    return Effect.sync(() => server.close())
  })

/** The `chroma` CLI script of the installed `chromadb` package (its `exports` hide package.json). */
const resolveCli = Effect.try({
  try: () => {
    const require = createRequire(import.meta.url)
    let dir = Path.dirname(require.resolve("chromadb"))
    for (;;) {
      const manifest = Path.join(dir, "package.json")
      if (Fs.existsSync(manifest)) {
        const pkg = JSON.parse(Fs.readFileSync(manifest, "utf8")) as {
          name?: string
          bin?: string | Record<string, string>
        }
        if (pkg.name === "chromadb") {
          const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.["chroma"]
          if (bin === undefined) throw new Error("chromadb's package.json has no `chroma` bin")
          return Path.resolve(dir, bin)
        }
      }
      const parent = Path.dirname(dir)
      if (parent === dir) throw new Error("chromadb's package.json not found")
      dir = parent
    }
  },
  catch: (error) => new ChromaStartFailed({ message: `Cannot find the chroma CLI: ${String(error)}`, output: "" })
})

/** Children whose spawn failed: they emit "error" and never "exit". */
const spawnFailed = new WeakSet<ChildProcess.ChildProcess>()

const hasExited = (child: ChildProcess.ChildProcess): boolean =>
  child.exitCode !== null || child.signalCode !== null || spawnFailed.has(child)

interface ExitStatus {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** Resumes once the process has exited (at once if it already has; also if it could not be spawned). */
const waitExit = (child: ChildProcess.ChildProcess): Effect.Effect<ExitStatus> =>
  Effect.async<ExitStatus>((resume) => {
    if (hasExited(child)) {
      resume(Effect.succeed({ code: child.exitCode, signal: child.signalCode }))
      return
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => resume(Effect.succeed({ code, signal }))
    const onError = () => {
      if (child.pid === undefined) resume(Effect.succeed({ code: null, signal: null }))
    }
    child.once("exit", onExit)
    child.once("error", onError)
    return Effect.sync(() => {
      child.off("exit", onExit)
      child.off("error", onError)
    })
  })

const describeExit = ({ code, signal }: ExitStatus) =>
  signal !== null ? `signal ${signal}` : code !== null ? `code ${code}` : "spawn failure"

/** SIGTERM, up to 5 seconds, then SIGKILL. */
const stopChild = (child: ChildProcess.ChildProcess): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (child.pid === undefined || hasExited(child)) return
    child.kill("SIGTERM")
    // Finalizers run uninterruptibly: without `interruptible`, the timeout would wait for the exit anyway.
    const exited = yield* Effect.interruptible(waitExit(child)).pipe(Effect.timeout(STOP_GRACE), Effect.option)
    if (Option.isNone(exited)) {
      yield* Effect.logWarning("Chroma did not stop within 5 seconds of SIGTERM: SIGKILL").pipe(
        Effect.annotateLogs({ pid: child.pid })
      )
      child.kill("SIGKILL")
      yield* Effect.interruptible(waitExit(child)).pipe(Effect.timeout(STOP_GRACE), Effect.ignore)
    }
  })

/** The arguments of a live process (not a zombie), from /proc; undefined if there is none. */
const commandLine = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const args = Fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "")
    return args.length === 0 ? undefined : args
  } catch {
    return undefined
  }
}

/** Whether `pid` is a Chroma server on this data directory (as `startChroma` runs it). */
const isChromaOn = (pid: number, dataDir: string): boolean => {
  const args = commandLine(pid)
  return args !== undefined && args.some((arg) => arg.includes("chroma")) && args.includes(dataDir)
}

const readPidFile = (file: string): number | undefined => {
  try {
    const pid = Number(Fs.readFileSync(file, "utf8").trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Removes the pid file if it still names `pid`. */
const removePidFile = (file: string, pid: number | undefined): void => {
  try {
    if (pid !== undefined && readPidFile(file) === pid) Fs.unlinkSync(file)
  } catch {
    // a file left behind names a process that is gone, or another one: the next start checks which
  }
}

/**
 * A server the pid file names, left running by a process that died without stopping it: SIGKILL,
 * and wait until it is gone (its command line goes when it exits, before it is reaped).
 */
const killOrphan = (dataDir: string): Effect.Effect<void, ChromaStartFailed> =>
  Effect.gen(function*() {
    const file = Path.join(dataDir, PID_FILE)
    const pid = readPidFile(file)
    if (pid === undefined || pid === process.pid || !isChromaOn(pid, dataDir)) return
    yield* Effect.logWarning("A Chroma server left running on this data directory: SIGKILL").pipe(
      Effect.annotateLogs({ pid, dataDir })
    )
    yield* Effect.sync(() => {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // gone already
      }
    })
    yield* Effect.repeat(Effect.sync(() => isChromaOn(pid, dataDir)), {
      schedule: Schedule.spaced(POLL_INTERVAL),
      while: (running) => running
    }).pipe(
      Effect.timeoutFail({
        duration: ORPHAN_EXIT_TIMEOUT,
        onTimeout: () =>
          new ChromaStartFailed({
            message: `Chroma ${pid}, left running on ${dataDir}, is still there ${
              Duration.format(ORPHAN_EXIT_TIMEOUT)
            } after SIGKILL`,
            output: ""
          })
      })
    )
    removePidFile(file, pid)
  })

const heartbeat = (url: string): Effect.Effect<boolean> =>
  Effect.tryPromise(async (signal) => {
    const response = await fetch(`${url}/api/v2/heartbeat`, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(Duration.toMillis(HEARTBEAT_TIMEOUT))])
    })
    await response.arrayBuffer()
    return response.status === 200
  }).pipe(Effect.orElseSucceed(() => false))

/**
 * Starts Chroma on `dataDir` and keeps it running until the scope closes. Fails if the server does
 * not answer its heartbeat within `startTimeout`, or exits first.
 */
export const startChroma = (
  options: ChromaServerOptions
): Effect.Effect<ChromaServerHandle, ChromaStartFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const startTimeout = Duration.decode(options.startTimeout ?? "30 seconds")
    const restartDelay = Duration.decode(options.restartDelay ?? "1 second")
    const dataDir = Path.resolve(options.dataDir)
    yield* Effect.try({
      try: () => Fs.mkdirSync(dataDir, { recursive: true }),
      catch: (error) => new ChromaStartFailed({ message: `Cannot create ${dataDir}: ${String(error)}`, output: "" })
    })
    const cli = yield* resolveCli
    const port = options.port === undefined || options.port === 0 ? yield* freePort(host) : options.port
    const url = `http://${host}:${port}`
    const pidFile = Path.join(dataDir, PID_FILE)
    const output = new OutputBuffer(OUTPUT_LINES)
    const restarts = yield* Ref.make(0)
    let current: ChildProcess.ChildProcess | undefined

    const spawn = Effect.sync(() => {
      const child = ChildProcess.spawn(
        process.execPath,
        [cli, "run", "--path", dataDir, "--host", host, "--port", String(port)],
        {
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, ANONYMIZED_TELEMETRY: "False" }
        }
      )
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => output.write(chunk))
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => output.write(chunk))
      child.on("error", (error) => {
        if (child.pid === undefined) spawnFailed.add(child)
        output.line(`[process error] ${error.message}`)
      })
      current = child
      return child
    }).pipe(
      Effect.tap((child) =>
        child.pid === undefined ? Effect.void : Effect.try({
          try: () => Fs.writeFileSync(pidFile, `${child.pid}\n`),
          catch: (error) => error
        }).pipe(
          Effect.catchAll((error) =>
            Effect.logWarning(`Cannot write ${pidFile}: a server this process leaves behind will not be found`).pipe(
              Effect.annotateLogs({ error: String(error) })
            )
          )
        )
      )
    )

    const failed = (message: string) =>
      Effect.suspend(() => Effect.fail(new ChromaStartFailed({ message, output: output.text() })))

    /** Polls the heartbeat until it answers 200; fails if the process exits first or on timeout. */
    const waitHealthy = (child: ChildProcess.ChildProcess) =>
      Effect.raceFirst(
        Effect.repeat(heartbeat(url), { schedule: Schedule.spaced(POLL_INTERVAL), until: (ok) => ok }).pipe(
          Effect.asVoid
        ),
        waitExit(child).pipe(
          Effect.flatMap((status) => failed(`Chroma exited during startup (${describeExit(status)})`))
        )
      ).pipe(
        Effect.timeoutFail({
          duration: startTimeout,
          onTimeout: () =>
            new ChromaStartFailed({
              message: `Chroma did not answer ${url}/api/v2/heartbeat within ${Duration.format(startTimeout)}`,
              output: output.text()
            })
        })
      )

    // The process, and a last-resort SIGKILL should this process exit with the scope still open.
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const onExit = () => {
          if (current !== undefined && !hasExited(current)) {
            current.kill("SIGKILL")
            removePidFile(pidFile, current.pid)
          }
        }
        process.on("exit", onExit)
        return onExit
      }),
      (onExit) =>
        Effect.suspend(() => (current === undefined ? Effect.void : stopChild(current))).pipe(
          Effect.ensuring(Effect.sync(() => {
            process.off("exit", onExit)
            if (current !== undefined && hasExited(current)) removePidFile(pidFile, current.pid)
          }))
        )
    )
    // Another server on the port would answer the heartbeat in this one's stead.
    const checkPort = Effect.flatMap(bindError(host, port), (error) =>
      error === undefined
        ? Effect.void
        : failed(`Port ${port} on ${host} ${error === "EADDRINUSE" ? "is in use" : "cannot be bound"} (${error})`))
    yield* killOrphan(dataDir)
    yield* checkPort
    const first = yield* spawn
    yield* waitHealthy(first)

    // Released before the process (finalizers run in reverse), so nothing restarts it while it stops.
    const supervise = Effect.gen(function*() {
      for (;;) {
        const child = current!
        const status = yield* waitExit(child)
        // A stop signal sent to the whole process group (Ctrl-C, `kill -TERM -<pgid>`) reaches Chroma
        // with us: we are stopping too, and this fiber is interrupted within the delay, before it says
        // "restarting". Any other exit (a crash, SIGKILL) is told at once.
        const stopSignal = status.signal === "SIGINT" || status.signal === "SIGTERM" || status.signal === "SIGHUP"
        if (stopSignal) yield* Effect.sleep(restartDelay)
        yield* Effect.logWarning(`Chroma exited (${describeExit(status)}): restarting`).pipe(
          Effect.annotateLogs({ pid: child.pid, port, dataDir })
        )
        output.line(
          `[supervisor] exited (${describeExit(status)}), restarting${
            stopSignal ? "" : ` in ${Duration.format(restartDelay)}`
          }`
        )
        if (!stopSignal) yield* Effect.sleep(restartDelay)
        yield* checkPort.pipe(
          Effect.tapError((error) => Effect.logWarning(`Chroma cannot restart yet: ${error.message}`)),
          Effect.retry(Schedule.spaced(restartDelay))
        )
        const next = yield* spawn
        yield* Ref.update(restarts, (n) => n + 1)
        yield* waitHealthy(next).pipe(
          Effect.catchAll((error) =>
            Effect.logError(`Chroma restart failed: ${error.message}`).pipe(
              Effect.annotateLogs({ output: error.output }),
              Effect.zipRight(Effect.sync(() => next.kill("SIGKILL")))
            )
          )
        )
      }
    })
    yield* Effect.forkScoped(supervise)

    return {
      url,
      port,
      restarts: Ref.get(restarts),
      pid: Effect.sync(() => (current === undefined || hasExited(current) ? undefined : current.pid)),
      healthy: heartbeat(url)
    } satisfies ChromaServerHandle
  })
