/**
 * The embedded Chroma server, for real: a child process on a temporary directory, the `chromadb`
 * client against it, a SIGKILL the supervisor recovers from, and nothing left once the scope closes.
 */
import { assert, describe, it } from "@effect/vitest"
import { ChromaServer, ChromaStartFailed, PID_FILE, startChroma } from "@voiceagent/runner/Knowledge/ChromaServer"
import { ChromaClient } from "chromadb"
import { Effect, Exit, Logger, Schedule, Scope } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Alive and not a zombie (an orphan killed here is reaped by whoever adopted it, maybe late). */
const isRunning = (pid: number) => {
  try {
    return !/\) [ZX] /.test(Fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

const readPid = (dataDir: string) => {
  try {
    return Number(Fs.readFileSync(Path.join(dataDir, PID_FILE), "utf8").trim())
  } catch {
    return undefined
  }
}

/**
 * Another Node process (through tsx) that starts Chroma on `dataDir` with this module, prints
 * `{ port, pid }` and waits; released with SIGKILL, as is the server it started if still running.
 */
const parentProcess = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const module = new URL("../src/Knowledge/ChromaServer.ts", import.meta.url).href
      const script = `
        const { Effect } = await import("effect")
        const { startChroma } = await import(${JSON.stringify(module)})
        await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const chroma = yield* startChroma({ dataDir: ${JSON.stringify(dataDir)} })
          const pid = yield* chroma.pid
          process.stdout.write(JSON.stringify({ port: chroma.port, pid }) + "\\n")
          yield* Effect.never
        })))`
      const child = ChildProcess.spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        cwd: new URL("..", import.meta.url).pathname,
        stdio: ["ignore", "pipe", "pipe"]
      })
      const state = { child, chromaPid: undefined as number | undefined, output: "" }
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (state.output += chunk))
      return state
    }),
    (state) =>
      Effect.sync(() => {
        state.child.kill("SIGKILL")
        if (state.chromaPid !== undefined && isRunning(state.chromaPid)) process.kill(state.chromaPid, "SIGKILL")
      })
  )

/** The first line the parent prints: where its Chroma listens, and its pid. */
const announced = (state: Effect.Effect.Success<ReturnType<typeof parentProcess>>) =>
  Effect.async<{ port: number; pid: number }, Error>((resume) => {
    let buffer = ""
    const onData = (chunk: string) => {
      buffer += chunk
      const end = buffer.indexOf("\n")
      if (end >= 0) {
        const line = JSON.parse(buffer.slice(0, end)) as { port: number; pid: number }
        state.chromaPid = line.pid
        resume(Effect.succeed(line))
      }
    }
    const onExit = () => resume(Effect.fail(new Error(`the parent exited: ${state.output}`)))
    state.child.stdout!.setEncoding("utf8").on("data", onData)
    state.child.once("exit", onExit)
    return Effect.sync(() => {
      state.child.stdout!.off("data", onData)
      state.child.off("exit", onExit)
    })
  }).pipe(Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error(`no answer: ${state.output}`) }))

const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return dot / Math.sqrt(na * nb)
}

/** Retries `check` (assertions throw, hence defects) every 100 ms until it holds, for up to `seconds`. */
const eventually = <A>(check: Effect.Effect<A, unknown>, seconds: number) =>
  check.pipe(
    Effect.catchAllDefect(Effect.fail),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo(`${seconds} seconds`)))
  )

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "chroma-test-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

describe("ChromaServer", () => {
  it.scopedLive("serves, survives a SIGKILL with its data, and leaves no process behind", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir
      const scope = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
      const chroma = yield* startChroma({ dataDir, restartDelay: "200 millis" }).pipe(Scope.extend(scope))

      assert.strictEqual(chroma.url, `http://127.0.0.1:${chroma.port}`)
      assert.isTrue(yield* chroma.healthy)
      const heartbeat = yield* Effect.promise(() => fetch(`${chroma.url}/api/v2/heartbeat`))
      assert.strictEqual(heartbeat.status, 200)
      assert.strictEqual(yield* chroma.restarts, 0)
      const firstPid = yield* chroma.pid
      assert.isDefined(firstPid)

      const client = new ChromaClient({ host: "127.0.0.1", port: chroma.port })
      const collection = yield* Effect.promise(() =>
        client.createCollection({ name: "docs", configuration: { hnsw: { space: "cosine" } }, embeddingFunction: null })
      )
      const embeddings = [[1, 0, 0], [0.6, 0.8, 0], [0, 0, 1]]
      yield* Effect.promise(() =>
        collection.upsert({
          ids: ["a", "b", "c"],
          embeddings,
          documents: ["alpha", "beta", "gamma"],
          metadatas: [{ n: 1 }, { n: 2 }, { n: 3 }]
        })
      )
      const query = [1, 0.5, 0]
      const result = yield* Effect.promise(() => collection.query({ queryEmbeddings: [query], nResults: 3 }))
      assert.deepStrictEqual(result.ids[0], ["a", "b", "c"])
      result.ids[0]!.forEach((id, i) => {
        const expected = 1 - cosine(query, embeddings[["a", "b", "c"].indexOf(id)]!)
        assert.closeTo(result.distances[0]![i]!, expected, 1e-4)
      })
      assert.deepStrictEqual(result.documents[0], ["alpha", "beta", "gamma"])

      // Killed: the supervisor starts it again, on the same port and data.
      process.kill(firstPid!, "SIGKILL")
      yield* eventually(
        Effect.gen(function*() {
          assert.strictEqual(yield* chroma.restarts, 1)
          assert.isTrue(yield* chroma.healthy)
        }),
        20
      )
      const secondPid = yield* chroma.pid
      assert.isDefined(secondPid)
      assert.notStrictEqual(secondPid, firstPid)
      assert.isFalse(isAlive(firstPid!))

      const again = yield* Effect.promise(() => client.getCollection({ name: "docs" }))
      const got = yield* Effect.promise(() => again.get({ ids: ["a", "b", "c"], include: ["documents", "metadatas"] }))
      assert.deepStrictEqual([...got.ids].sort(), ["a", "b", "c"])
      assert.deepStrictEqual(
        got.ids.map((id, i) => [id, got.documents[i], got.metadatas[i]?.n]).sort(),
        [["a", "alpha", 1], ["b", "beta", 2], ["c", "gamma", 3]]
      )
      const requery = yield* Effect.promise(() => again.query({ queryEmbeddings: [[0, 0, 1]], nResults: 1 }))
      assert.deepStrictEqual(requery.ids[0], ["c"])
      assert.closeTo(requery.distances[0]![0]!, 0, 1e-4)

      // Closed: the process is gone.
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isAlive(secondPid!))
      assert.isFalse(yield* chroma.healthy)
      assert.strictEqual(yield* chroma.restarts, 1)
    }), { timeout: 60_000 })

  it.scopedLive(
    "a stop signal that reaches Chroma with us (the process group's Ctrl-C) is not told as a restart; alone, it is one",
    () =>
      Effect.gen(function*() {
        const dataDir = yield* tempDir
        const said: Array<string> = []
        const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => said.push(String(message))))

        // the platform stops with it: the scope closes within the restart delay
        const scope = yield* Scope.make()
        const chroma = yield* startChroma({ dataDir: Path.join(dataDir, "a"), restartDelay: "2 seconds" }).pipe(
          Scope.extend(scope),
          Effect.provide(logger)
        )
        const pid = yield* chroma.pid
        process.kill(pid!, "SIGTERM")
        yield* eventually(Effect.sync(() => assert.isFalse(isAlive(pid!))), 10)
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual(said.filter((m) => m.includes("restarting")), [])
        assert.strictEqual(yield* chroma.restarts, 0)

        // the signal came to Chroma alone: after the delay it is told and restarted
        const alone = yield* startChroma({ dataDir: Path.join(dataDir, "b"), restartDelay: "200 millis" }).pipe(
          Effect.provide(logger)
        )
        process.kill((yield* alone.pid)!, "SIGTERM")
        yield* eventually(
          Effect.gen(function*() {
            assert.strictEqual(yield* alone.restarts, 1)
            assert.isTrue(yield* alone.healthy)
          }),
          20
        )
        assert.lengthOf(said.filter((m) => m.includes("Chroma exited (signal SIGTERM): restarting")), 1)
      }),
    { timeout: 60_000 }
  )

  it.scopedLive("as a layer; another on its port fails rather than answer for it", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir
      yield* Effect.gen(function*() {
        const first = yield* ChromaServer
        assert.isTrue(yield* first.healthy)
        const error = yield* Effect.flip(
          Effect.scoped(startChroma({ dataDir: Path.join(dataDir, "second"), port: first.port }))
        )
        assert.instanceOf(error, ChromaStartFailed)
        assert.match(error.message, /in use/)
        assert.isTrue(yield* first.healthy)
      }).pipe(Effect.provide(ChromaServer.layer({ dataDir: Path.join(dataDir, "first") })))
    }), { timeout: 60_000 })

  it.scopedLive(
    "a server left running by a parent that was SIGKILLed is killed before the next start",
    () =>
      Effect.gen(function*() {
        const dataDir = yield* tempDir
        const parent = yield* parentProcess(dataDir)
        const orphan = yield* announced(parent)
        assert.strictEqual(readPid(dataDir), orphan.pid)
        const before = new ChromaClient({ host: "127.0.0.1", port: orphan.port })
        const collection = yield* Effect.promise(() =>
          before.createCollection({
            name: "kept",
            configuration: { hnsw: { space: "cosine" } },
            embeddingFunction: null
          })
        )
        yield* Effect.promise(() => collection.upsert({ ids: ["a"], embeddings: [[1, 0]], documents: ["alpha"] }))

        // The parent dies without a chance to stop its child, which keeps serving the data directory.
        parent.child.kill("SIGKILL")
        yield* Effect.async<void>((resume) => {
          if (parent.child.exitCode !== null || parent.child.signalCode !== null) resume(Effect.void)
          else parent.child.once("exit", () => resume(Effect.void))
        })
        assert.isTrue(isRunning(orphan.pid))
        assert.strictEqual((yield* Effect.promise(() => before.heartbeat())) > 0, true)
        assert.strictEqual(readPid(dataDir), orphan.pid)

        const scope = yield* Scope.make()
        yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
        const chroma = yield* startChroma({ dataDir }).pipe(Scope.extend(scope))
        assert.isFalse(isRunning(orphan.pid))
        const pid = yield* chroma.pid
        assert.isDefined(pid)
        assert.notStrictEqual(pid, orphan.pid)
        assert.strictEqual(readPid(dataDir), pid)
        const after = new ChromaClient({ host: "127.0.0.1", port: chroma.port })
        const again = yield* Effect.promise(() => after.getCollection({ name: "kept" }))
        const got = yield* Effect.promise(() => again.get({ ids: ["a"], include: ["documents"] }))
        assert.deepStrictEqual([got.ids, got.documents], [["a"], ["alpha"]])

        // A clean stop takes its pid file away.
        yield* Scope.close(scope, Exit.void)
        assert.isFalse(isAlive(pid!))
        assert.isUndefined(readPid(dataDir))
      }),
    { timeout: 120_000 }
  )

  it.scopedLive("a pid file naming some other process leaves that process alone", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir
      const other = yield* Effect.acquireRelease(
        Effect.sync(() => ChildProcess.spawn("sleep", ["60"], { stdio: "ignore" })),
        (child) => Effect.sync(() => child.kill("SIGKILL"))
      )
      Fs.writeFileSync(Path.join(dataDir, PID_FILE), `${other.pid}\n`)
      const chroma = yield* startChroma({ dataDir })
      assert.isTrue(isRunning(other.pid!))
      assert.isTrue(yield* chroma.healthy)
      assert.strictEqual(readPid(dataDir), yield* chroma.pid)
    }), { timeout: 60_000 })
})
