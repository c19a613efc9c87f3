/**
 * `npm run cluster:local` for real (npm, the supervisor, every role in its own process, Chroma) on a
 * scratch PostgreSQL database.
 *
 * - Start-up failures: its ports held by another process before it starts (refused before anything
 *   runs), or taken by one once the check is past (that process answers `/readyz` with 200, yet it is
 *   not taken for a child: the first child to exit, with EADDRINUSE, is named and the rest stopped);
 *   a child exiting during start-up (`ClusterLocal.start` fails, naming it). No process is left, and
 *   the other one is untouched.
 * - Then one topology for every case, in order: the table and a signup through the gateway; then each
 *   role stopped with SIGTERM while a request is in flight (a runner while top-ups go through it; each
 *   HTTP process while a slow request's body is still arriving): the request gets its normal answer,
 *   new connections are refused, the process exits 0 within SHUTDOWN_GRACE, and what the request wrote
 *   is in the database; last, Ctrl-C stops the rest.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as ClusterLocal from "@voiceagent/devtools/ClusterLocal"
import { repoRoot } from "@voiceagent/devtools/ClusterLocal"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { waitForOutput } from "./Cli.js"
import {
  type Answer,
  connectionRefused,
  freeBasePort,
  impostor,
  isRunning,
  killAll,
  processesWithEnvironment,
  scratchDirectory,
  type SlowRequest,
  slowRequest
} from "./ClusterLocalTesting.js"
import { type Account, createKey, get, post, signup } from "./Http.js"

const postgres = await TestDatabase.reachablePostgresUrl()
if (postgres === undefined) {
  console.warn(
    `cluster:local test SKIPPED: ${TestDatabase.postgresOnlySkipReason()}`
  )
}

const GRACE_MS = 5_000
const JWT_SECRET = "cluster-local-test-secret-of-forty-chars!"

interface ClusterLocalCli {
  readonly pid: number
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<RegExpMatchArray>
  readonly exited: Effect.Effect<ClusterLocal.ExitStatus>
}

/**
 * `npm run cluster:local -- <args>` in a process group of its own, signalled as a terminal's Ctrl-C
 * signals one. Still running when the scope closes: Ctrl-C, up to 40 s, then SIGKILL to the group.
 */
const clusterLocalCli = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      let output = ""
      const child = spawn("npm", ["run", "--silent", "cluster:local", "--", ...args], {
        cwd: repoRoot,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...env }
      })
      child.stdout.on("data", (chunk) => (output += chunk))
      child.stderr.on("data", (chunk) => (output += chunk))
      const exit = new Promise<ClusterLocal.ExitStatus>((resolve) =>
        child.on("exit", (code, signal) => resolve({ code, signal }))
      )
      return {
        child,
        cli: {
          pid: child.pid!,
          output: () => output,
          waitFor: (pattern: RegExp, timeoutMs = 30_000) => waitForOutput(child, () => output, pattern, timeoutMs),
          exited: Effect.promise(() => exit)
        } satisfies ClusterLocalCli
      }
    }),
    ({ child, cli }) =>
      Effect.gen(function*() {
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(-child.pid!, "SIGINT")
          yield* cli.exited.pipe(Effect.interruptible, Effect.timeout("40 seconds"), Effect.ignore)
        }
        yield* Effect.sync(() => {
          try {
            process.kill(-child.pid!, "SIGKILL")
          } catch {
            // gone
          }
        })
      })
  ).pipe(Effect.map(({ cli }) => cli))

/** Its ports with `--base-port`, by process (ClusterLocal's `basePort`; two runners). */
const PORTS = {
  gateway: 0,
  "platform-core": 1,
  comms: 2,
  campaign: 3,
  chroma: 4,
  "runner-1": 10,
  "runner-2": 11
} as const
const HTTP_OFFSETS = [PORTS.gateway, PORTS["platform-core"], PORTS.comms, PORTS.campaign, PORTS.chroma]
const RUNNER_OFFSETS = [PORTS["runner-1"], PORTS["runner-2"]]

/** Answers 200 to a GET on 127.0.0.1:port. */
const answers200 = (port: number) =>
  Effect.promise(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false))

describe("npm run cluster:local with its ports held by another process", () => {
  it.scopedLive(
    "refuses to start, naming each port, its process and EADDRINUSE; starts nothing; the other process is untouched",
    () =>
      Effect.gen(function*() {
        const base = yield* freeBasePort([...HTTP_OFFSETS, ...RUNNER_OFFSETS])
        const other = yield* impostor({
          httpPorts: HTTP_OFFSETS.map((offset) => base + offset),
          tcpPorts: RUNNER_OFFSETS.map((offset) => base + offset)
        })
        const directory = yield* scratchDirectory("cluster-local-taken-")
        const logs = path.join(directory, "logs")
        const started = Date.now()
        const cli = yield* clusterLocalCli(["--base-port", String(base), "--logs", logs], {
          // never reached: it stops before the migration (were it not to, the migration would fail)
          DATABASE_URL: "postgres://cluster-local-test@127.0.0.1:1/none",
          DATA_DIR: directory,
          JWT_SECRET
        })
        const status = yield* cli.exited.pipe(Effect.timeout("90 seconds"))
        console.log(`cluster:local with its ports held: exit ${status.code} after ${Date.now() - started} ms`)
        assert.strictEqual(status.code, 1, cli.output())
        for (const [name, offset] of Object.entries(PORTS)) {
          assert.include(cli.output(), `127.0.0.1:${base + offset} for ${name} (EADDRINUSE)`)
        }
        assert.notInclude(cli.output(), "migrate: applying", "nothing started")
        assert.isFalse(fs.existsSync(path.join(logs, "migrate.log")), "nothing started")
        assert.deepStrictEqual(processesWithEnvironment("DATA_DIR", directory), [], "no process of it is left")
        assert.deepStrictEqual(other.requests(), [], "nothing was sent to the other process")
        assert.isTrue(isRunning(other.pid), "the other process still runs")
        assert.isTrue(yield* answers200(base), "and still answers")
      }),
    120_000
  )
})

describe.skipIf(postgres === undefined)("cluster:local start-up failures (PostgreSQL only)", () => {
  it.scopedLive(
    "ports taken once the check is past: the other process's /readyz 200s are not taken for the children's; the " +
      "first child to exit (EADDRINUSE) is named, the rest stopped, exit 1",
    () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase.scratchPostgresDatabase(postgres!)
        const base = yield* freeBasePort([...HTTP_OFFSETS, ...RUNNER_OFFSETS])
        const directory = yield* scratchDirectory("cluster-local-impostor-")
        const logs = path.join(directory, "logs")
        const cli = yield* clusterLocalCli(["--base-port", String(base), "--logs", logs], {
          DATABASE_URL: db.url,
          DATA_DIR: directory,
          JWT_SECRET,
          SHUTDOWN_GRACE: `${GRACE_MS} millis`
        })
        // the ports were free when it checked them; its children start once the migration is done.
        // The runners' ports stay free: they start, are the supervisor's own, and are stopped too.
        yield* cli.waitFor(/migrate: applying the migrations/, 60_000)
        const other = yield* impostor({ httpPorts: HTTP_OFFSETS.map((offset) => base + offset), tcpPorts: [] })
        const taken = Date.now()
        const [outcome] = yield* cli.waitFor(
          /Ready in [\d.]+ s|cluster:local: .* before it was ready; its log: \S+/,
          150_000
        )
        const reported = Date.now()
        assert.notMatch(outcome, /Ready in/, `ready on the other process's behalf:\n${cli.output()}`)
        const [failure, name] = outcome.match(
          /^cluster:local: (\S+) \((?:chroma|serve [\w-]+), pid \d+\) exited with code [1-9]\d* before it was ready/
        ) ?? [outcome, ""]
        const status = yield* cli.exited.pipe(Effect.timeout("60 seconds"))
        const output = cli.output()
        assert.strictEqual(status.code, 1, output)
        assert.include(["gateway", "platform-core", "comms", "campaign", "chroma"], name, failure)
        const logTail = output.slice(output.indexOf("--- last lines of its log ---"))
        assert.include(logTail, "EADDRINUSE", "the end of its log says why")
        assert.include(output, "stopping: the gateway, then the services, then the runners, then Chroma")
        // it asked the other process, which answered 200, and did not take that for readiness
        const probes = other.requests().filter((request) => / GET \/readyz$/.test(request))
        assert.isAbove(probes.length, 0, "the other process was asked /readyz")
        // the named child's log file was last written when it exited
        const exitedAt = fs.statSync(path.join(logs, `${name}.log`)).mtimeMs
        console.log(
          `cluster:local with its ports taken after the check: ${name} exited ${
            Math.round(exitedAt - taken)
          } ms after, ` +
            `reported ${Math.round(reported - exitedAt)} ms after its exit, cluster:local exited ${
              Date.now() - taken
            } ms after; ` +
            `${probes.length} /readyz probe(s) answered 200 by the other process`
        )
        assert.isBelow(reported - exitedAt, 5_000, "reported at once")
        assert.deepStrictEqual(processesWithEnvironment("DATA_DIR", directory), [], "no process of it is left")
        assert.isTrue(isRunning(other.pid), "the other process still runs")
        assert.isTrue(yield* answers200(base), "and still answers")
      }),
    300_000
  )

  it.scopedLive(
    "a child that exits during start-up (runner-2, an invalid METRICS_PORT) fails ClusterLocal.start, naming it; the " +
      "others are stopped",
    () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase.scratchPostgresDatabase(postgres!)
        const logsDir = yield* scratchDirectory("cluster-local-invalid-")
        const run = crypto.randomUUID()
        const lines: Array<string> = []
        let stoppingAt = 0
        const started = Date.now()
        const error = yield* ClusterLocal.start({
          databaseUrl: db.url,
          logsDir,
          runners: 2,
          chroma: "none",
          env: { CLUSTER_LOCAL_TEST_RUN: run, SHUTDOWN_GRACE: `${GRACE_MS} millis` },
          runnerEnv: (i) => i === 1 ? { METRICS_PORT: "not-a-port" } : {},
          report: (line) => {
            if (line.includes("stopping:")) stoppingAt = Date.now()
            lines.push(line)
          }
        }).pipe(Effect.scoped, Effect.flip)
        const failed = Date.now()
        // its log file was last written when it exited
        const exitedAt = fs.statSync(path.join(logsDir, "runner-2.log")).mtimeMs
        console.log(
          `ClusterLocal.start with runner-2 misconfigured: runner-2 exited ${
            Math.round(exitedAt - started)
          } ms after the start, ` +
            `the stop began ${Math.round(stoppingAt - exitedAt)} ms after its exit, start failed ${
              failed - stoppingAt
            } ms later\n` +
            lines.join("\n")
        )
        assert.isBelow(stoppingAt - exitedAt, 5_000, "the others are stopped at once")
        assert.match(error.message, /^runner-2 \(runner, pid \d+\) exited with code 2 before it was ready; its log: /)
        assert.include(error.log, "METRICS_PORT: expected a port number")
        assert.include(lines.join("\n"), "stopping: the gateway, then the services, then the runners, then Chroma")
        assert.deepStrictEqual(processesWithEnvironment("CLUSTER_LOCAL_TEST_RUN", run), [], "no process of it is left")
      }),
    300_000
  )
})

interface Listed {
  readonly name: string
  readonly role: string
  readonly address: string
  readonly pid: number
  readonly log: string
}

class Topology extends Context.Tag("test/ClusterLocalTopology")<Topology, {
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<RegExpMatchArray>
  readonly npm: { readonly pid: number; readonly exited: Effect.Effect<void> }
  readonly listed: ReadonlyMap<string, Listed>
  readonly chromaServerPid: number
  readonly databaseUrl: string
  /** Filled by the first case, used by the later ones. */
  readonly state: { account?: Account; key?: string; topUps: number }
}>() {}

/** The table's rows: NAME, ROLE, ADDRESS, PID, LOG, separated by two spaces or more. */
const parseTable = (output: string): Map<string, Listed> => {
  const rows = new Map<string, Listed>()
  for (const line of output.split("\n")) {
    const cells = line.trim().split(/\s{2,}/)
    if (cells.length < 5 || !/^\d+$/.test(cells[3]!)) continue
    rows.set(cells[0]!, {
      name: cells[0]!,
      role: cells[1]!,
      address: cells[2]!,
      pid: Number(cells[3]),
      log: cells[4]!.replace(/ \(exited.*$/, "")
    })
  }
  return rows
}

const TopologyLive = Layer.scoped(
  Topology,
  Effect.gen(function*() {
    const db = yield* TestDatabase.scratchPostgresDatabase(postgres!)
    const directory = yield* scratchDirectory("cluster-local-")
    const logs = path.join(directory, "logs")
    const listed = new Map<string, Listed>()
    let chromaServerPid = -1
    // runs after the supervisor's own stop (below)
    yield* Effect.addFinalizer(() => killAll([...[...listed.values()].map((p) => p.pid), chromaServerPid]))
    const cli = yield* clusterLocalCli(["--logs", logs], {
      DATABASE_URL: db.url,
      DATA_DIR: directory,
      JWT_SECRET,
      SHUTDOWN_GRACE: `${GRACE_MS} millis`,
      SHARD_LOCK_REFRESH: "1 second",
      SHARD_LOCK_EXPIRATION: "5 seconds",
      ENTITY_MESSAGE_POLL: "500 millis",
      SHARDS_PER_GROUP: "30",
      // the gateway's rate limits are not what this test is about (40 top-ups at once from one address)
      RATE_LIMIT_PER_SECOND: "0",
      RATE_LIMIT_IP_PER_SECOND: "0"
    })
    yield* cli.waitFor(/Ready in [\d.]+ s/, 240_000)
    for (const [name, row] of parseTable(cli.output())) listed.set(name, row)
    const chromaLog = fs.readFileSync(path.resolve(repoRoot, listed.get("chroma")!.log), "utf8")
    chromaServerPid = Number(chromaLog.match(/server pid (\d+)/)![1])
    return {
      output: cli.output,
      waitFor: cli.waitFor,
      npm: { pid: cli.pid, exited: Effect.asVoid(cli.exited) },
      listed,
      chromaServerPid,
      databaseUrl: db.url,
      state: { topUps: 0 }
    }
  })
)

const query = (url: string, statement: string, params: ReadonlyArray<unknown> = []) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(statement, [...params])).rows
    } finally {
      await client.end()
    }
  })

const portOf = (row: Listed) => Number(row.address.split(":").at(-1))

/**
 * SIGTERM to `name` while `request` is in flight there: new connections refused, the request
 * answered as usual with `Connection: close`, the process exited 0 within the grace (the
 * supervisor reports the exit).
 */
const stopDuring = (name: string, request: Effect.Effect<SlowRequest>) =>
  Effect.gen(function*() {
    const topology = yield* Topology
    const row = topology.listed.get(name)!
    const slow = yield* request
    yield* Effect.sleep("400 millis")
    const signalled = Date.now()
    process.kill(row.pid, "SIGTERM")
    yield* Effect.sleep("300 millis")
    assert.isTrue(yield* connectionRefused(portOf(row)), `${name} refuses new connections once stopping`)
    yield* slow.finish
    const answer = yield* slow.answer
    assert.notProperty(answer, "error", `${name} answered the request in flight: ${JSON.stringify(answer)}`)
    const [, code] = yield* topology.waitFor(
      new RegExp(`${name} \\(pid ${row.pid}\\) exited with code (\\d+)`),
      GRACE_MS + 10_000
    )
    const stoppedMs = Date.now() - signalled
    assert.strictEqual(code, "0", `${name} exits 0`)
    assert.isBelow(stoppedMs, GRACE_MS, `${name} stopped within the grace`)
    const log = fs.readFileSync(path.resolve(repoRoot, row.log), "utf8")
    assert.match(
      log,
      /stopping: no new connections, [1-9]\d* request\(s\) in flight/,
      `${name} had the request in flight`
    )
    console.log(`${name}: SIGTERM with a request in flight → answered, exited 0 after ${stoppedMs} ms`)
    return answer as Answer
  })

describe.skipIf(postgres === undefined)("npm run cluster:local on PostgreSQL (PostgreSQL only)", () => {
  layer(TopologyLive, { timeout: 300_000, excludeTestServices: true })((it) => {
    it.effect(
      "prints every process with its role, address, pid and log file; the gateway answers a signup with 201",
      () =>
        Effect.gen(function*() {
          const topology = yield* Topology
          const names = ["migrate", "chroma", "runner-1", "runner-2", "platform-core", "comms", "campaign", "gateway"]
          assert.deepStrictEqual([...topology.listed.keys()], names, topology.output())
          assert.strictEqual(topology.listed.get("gateway")!.role, "serve gateway")
          for (const row of topology.listed.values()) {
            assert.isTrue(fs.existsSync(path.resolve(repoRoot, row.log)), `${row.name} has its log file`)
            if (row.name !== "migrate") assert.isTrue(isRunning(row.pid), `${row.name} runs`)
          }
          assert.isTrue(isRunning(topology.chromaServerPid), "the Chroma server runs")
          const gateway = `${topology.listed.get("gateway")!.address}/api/v1`
          const reply = yield* post(`${gateway}/auth/signup`, {
            json: { email: "cluster-local@example.com", password: "correct horse battery", companyName: "Local" }
          })
          assert.strictEqual(reply.status, 201, reply.text)
          topology.state.account = yield* signup(gateway)
          topology.state.key = (yield* createKey(gateway, topology.state.account.token)).key
        })
    )

    it.effect(
      "runner: SIGTERM while top-ups go through it: each answered 201 and applied once, exit 0 within the grace",
      () =>
        Effect.gen(function*() {
          const topology = yield* Topology
          const gateway = `${topology.listed.get("gateway")!.address}/api/v1`
          const token = topology.state.account!.token
          const runner = topology.listed.get("runner-1")!
          const topUps = Array.from(
            { length: 40 },
            (_, i) =>
              post(`${gateway}/wallet/top-ups`, {
                token,
                json: { amount: 1 + i, idempotencyKey: `during-runner-stop-${i}` }
              })
          )
          const sending = yield* Effect.fork(Effect.all(topUps, { concurrency: "unbounded" }))
          yield* Effect.sleep("100 millis")
          const signalled = Date.now()
          process.kill(runner.pid, "SIGTERM")
          const [, code] = yield* topology.waitFor(
            new RegExp(`runner-1 \\(pid ${runner.pid}\\) exited with code (\\d+)`),
            GRACE_MS + 10_000
          )
          const stoppedMs = Date.now() - signalled
          const replies = yield* sending.await.pipe(Effect.flatten)
          assert.deepStrictEqual(
            replies.map((r) => r.status),
            replies.map(() => 201),
            replies.map((r) => r.text).join("\n")
          )
          assert.strictEqual(code, "0")
          assert.isBelow(stoppedMs, GRACE_MS)
          const locks = yield* query(
            topology.databaseUrl,
            "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = " +
              "'advisory' AND a.application_name LIKE $1",
            [`%:${portOf(runner)}`]
          )
          assert.strictEqual(locks[0].n, 0, "it holds no shard lock")
          const wallet = yield* get(`${gateway}/wallet`, { token })
          assert.strictEqual(wallet.body.balance, (40 * 41) / 2, "every top-up applied once")
          topology.state.topUps = 40
          console.log(`runner-1: SIGTERM during 40 top-ups → all 201, exited 0 after ${stoppedMs} ms`)
        })
    )

    it.effect(
      "serve gateway: SIGTERM during a slow signup: 201, new connections refused, exit 0 within the grace",
      () =>
        Effect.gen(function*() {
          const topology = yield* Topology
          const email = "slow-through-gateway@example.com"
          const answer = yield* stopDuring(
            "gateway",
            slowRequest("POST", `${topology.listed.get("gateway")!.address}/api/v1/auth/signup`, {
              json: { email, password: "correct horse battery", companyName: "Slow" }
            })
          )
          assert.strictEqual(answer.status, 201)
          assert.strictEqual(answer.connection, "close")
          const users = yield* query(topology.databaseUrl, "SELECT count(*)::int AS n FROM users WHERE email = $1", [
            email
          ])
          assert.strictEqual(users[0].n, 1)
        })
    )

    it.effect(
      "serve platform-core: SIGTERM during a slow top-up (through a runner): 201, applied once, exit 0 within the " +
        "grace",
      () =>
        Effect.gen(function*() {
          const topology = yield* Topology
          const answer = yield* stopDuring(
            "platform-core",
            slowRequest("POST", `${topology.listed.get("platform-core")!.address}/api/v1/wallet/top-ups`, {
              token: topology.state.account!.token,
              json: { amount: 1000, idempotencyKey: "during-platform-core-stop" }
            })
          )
          assert.strictEqual(answer.status, 201)
          assert.strictEqual(answer.connection, "close")
          assert.strictEqual(answer.body.wallet.balance, (40 * 41) / 2 + 1000)
        })
    )

    it.effect("serve comms: SIGTERM during a slow agent creation: 201, stored, exit 0 within the grace", () =>
      Effect.gen(function*() {
        const topology = yield* Topology
        const comms = `${topology.listed.get("comms")!.address}/api/v1`
        const personas = yield* get(`${comms}/prompts/personas`, { token: topology.state.key! })
        const answer = yield* stopDuring(
          "comms",
          slowRequest("POST", `${comms}/agents`, {
            token: topology.state.key!,
            json: { name: "Created while stopping", agent_persona_id: personas.body.items[0].id }
          })
        )
        assert.strictEqual(answer.status, 201, JSON.stringify(answer.body))
        const agents = yield* query(topology.databaseUrl, "SELECT count(*)::int AS n FROM agents WHERE id = $1", [
          answer.body.id
        ])
        assert.strictEqual(agents[0].n, 1)
      }))

    it.effect(
      "serve campaign: SIGTERM during a slow bulk import of 200 contacts: all imported, exit 0 within the grace",
      () =>
        Effect.gen(function*() {
          const topology = yield* Topology
          const campaign = `${topology.listed.get("campaign")!.address}/api/v1`
          const list = yield* post(`${campaign}/contact-lists`, {
            token: topology.state.key!,
            json: { name: "while stopping" }
          })
          assert.strictEqual(list.status, 201, list.text)
          const contacts = Array.from({ length: 200 }, (_, i) => ({ phoneNumber: `+1646555${String(1000 + i)}` }))
          const answer = yield* stopDuring(
            "campaign",
            slowRequest("POST", `${campaign}/contact-lists/${list.body.id}/contacts/bulk`, {
              token: topology.state.key!,
              json: { contacts }
            })
          )
          assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
          assert.strictEqual(answer.body.imported, 200)
          const stored = yield* query(
            topology.databaseUrl,
            "SELECT count(*)::int AS n FROM contacts WHERE contact_list_id = $1",
            [list.body.id]
          )
          assert.strictEqual(stored[0].n, 200)
        })
    )

    it.effect("Ctrl-C stops every process that is left, Chroma included, and the supervisor says so", () =>
      Effect.gen(function*() {
        const topology = yield* Topology
        const signalled = Date.now()
        process.kill(-topology.npm.pid, "SIGINT")
        yield* topology.npm.exited.pipe(Effect.timeout("40 seconds"))
        console.log(`cluster:local: Ctrl-C → every process stopped after ${Date.now() - signalled} ms`)
        assert.include(topology.output(), "All stopped.")
        assert.match(topology.output(), /stopped runner-2 \(code 0\)/)
        assert.match(topology.output(), /stopped chroma \(code 0\)/)
        for (const row of topology.listed.values()) assert.isFalse(isRunning(row.pid), `${row.name} is gone`)
        assert.isFalse(isRunning(topology.chromaServerPid), "the Chroma server is gone")
      }))
  })
})
