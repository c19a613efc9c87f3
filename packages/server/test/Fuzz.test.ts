import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import * as TestChroma from "@voiceagent/runner/Testing/TestChroma"
import { Duration, Effect, FastCheck as fc, LogLevel, Runtime } from "effect"
import * as crypto from "node:crypto"
import * as http from "node:http"
import {
  type Case,
  caseArb,
  type Endpoint,
  endpoints,
  fixtureFor,
  type Fixtures,
  refusedNumber,
  requestOf,
  type WireRequest
} from "./FuzzCases.js"
import { type RawAnswer, rawRequest, requestHead, tableCounts } from "./Hostile.js"
import { createKey, get, post, signup, waitUntil } from "./Http.js"

// A fuzz of every route of PlatformApi, through the gateway and straight to the service that owns
// it: bodies generated from each route's own schema (or a valid body with the fixtures' ids), then
// made hostile (FuzzCases.ts); hostile path parameters, query strings, media types and credentials;
// truncated, stalled and chunked bodies. Whatever is sent: never a 5xx, never unanswered past the
// servers' timeouts, nothing written when the answer is a refusal, and every 4xx in the error body.
//
// FC_SEED replays a run; FUZZ_RUNS sets the cases per route and target (default 3: about a minute
// on two cores); FUZZ_TRANSPORT_ROUTES how many routes get the slow and truncated bodies (default 10).

const SEED = Number(process.env["FC_SEED"] ?? Date.now() % 2 ** 31)
const RUNS = Number(process.env["FUZZ_RUNS"] ?? 3)
const TRANSPORT_ROUTES = Number(process.env["FUZZ_TRANSPORT_ROUTES"] ?? 10)
/** Only the endpoints whose `METHOD /path` matches (to replay one route's cases). */
const ONLY = process.env["FUZZ_ONLY"] === undefined ? undefined : new RegExp(process.env["FUZZ_ONLY"])
/** Prints every request and its answer. */
const VERBOSE = process.env["FUZZ_VERBOSE"] !== undefined
console.log(`fuzz: seed ${SEED} (FC_SEED=${SEED} replays it), ${RUNS} case(s) per route and target`)

/** The servers' client timeouts, short so that stalled bodies are cut off in the run's time. */
const TIMEOUTS = { headers: Duration.seconds(2), body: Duration.seconds(1), request: Duration.seconds(5) }
const BODY_TIMEOUT_MS = Duration.toMillis(TIMEOUTS.body)
const REQUEST_TIMEOUT_MS = Duration.toMillis(TIMEOUTS.request)
/** Slack for a loaded two-core machine on top of a timeout. */
const MARGIN_MS = 4_000
/** A complete request is answered within this (handlers have no timeout of their own to hide behind). */
const ANSWER_BOUND_MS = REQUEST_TIMEOUT_MS + MARGIN_MS

const TWILIO_TOKEN = "fuzz-twilio-auth-token"
const TELNYX_KEYS = crypto.generateKeyPairSync("ed25519")
const TELNYX_PUBLIC_KEY = TELNYX_KEYS.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("base64")
const APP_SECRET = "fuzz-chat-app-secret"
const PUBLIC_URL = "https://voice.fuzz.example"

/** Routes whose success starts work that writes later: the run waits for it before going on. */
const BACKGROUND = new Set([
  "POST /api/v1/channels/voice/call",
  "POST /api/v1/channels/web/call",
  "POST /api/v1/campaigns/:id/schedule",
  "POST /api/v1/campaigns/:id/resume",
  "POST /api/v1/knowledge-bases/:kbId/ingestion-jobs",
  "POST /api/v1/knowledge-bases/:kbId/sources",
  "POST /api/v1/knowledge-bases/:kbId/documents/upload",
  "POST /api/v1/telephony/twilio/status/:sessionId",
  "POST /api/v1/telephony/twilio/amd/:sessionId",
  "POST /api/v1/telephony/telnyx/webhook/:sessionId",
  "POST /api/v1/chatapp/webhook/:tenantId"
])

// ---------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------

interface Outcome {
  /** The answer's status, or undefined when the connection ended without one. */
  readonly status: number | undefined
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  readonly elapsedMs: number
  /** Why there is no answer: the connection's error, or the test's own limit. */
  readonly ended: string | undefined
}

/** Sends `r` to `origin` on a connection of its own; gives up after `limitMs`. */
const send = (origin: string, r: WireRequest, limitMs: number): Promise<Outcome> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(origin)
    const started = performance.now()
    const headers: Record<string, string | Array<string>> = Object.fromEntries(
      Object.entries(r.headers).map(([k, v]) => [k, typeof v === "string" ? v : [...v]])
    )
    if (r.body !== undefined) {
      if (r.chunked) headers["transfer-encoding"] = "chunked"
      else headers["content-length"] = String(r.body.byteLength)
    }
    let done = false
    const chunks: Array<Buffer> = []
    let response: http.IncomingMessage | undefined
    const finish = (ended: string | undefined) => {
      if (done) return
      done = true
      clearTimeout(timer)
      request.destroy()
      resolve({
        status: response?.statusCode,
        headers: response?.headers ?? {},
        text: Buffer.concat(chunks).toString("utf8"),
        elapsedMs: performance.now() - started,
        ended: response === undefined ? ended : undefined
      })
    }
    const request = http.request({ host: hostname, port, method: r.method, path: r.target, headers, agent: false })
    const timer = setTimeout(() => finish(`no answer within ${limitMs} ms`), limitMs)
    request.on("response", (res) => {
      response = res
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => finish(undefined))
      res.on("error", () => finish(undefined))
      res.on("aborted", () => finish(undefined))
    })
    request.on("error", (error: NodeJS.ErrnoException) => {
      // an answer may still be on its way (a refusal sent before the body was read)
      setTimeout(() => finish(`connection ${error.code ?? error.message}`), response === undefined ? 50 : 0)
    })
    if (r.body === undefined) {
      request.end()
    } else if (r.chunked) {
      const third = Math.ceil(r.body.byteLength / 3)
      for (let i = 0; i < r.body.byteLength; i += third) request.write(r.body.subarray(i, i + third))
      request.end()
    } else {
      request.end(r.body)
    }
  })

// ---------------------------------------------------------------------------------------------
// Figures and findings
// ---------------------------------------------------------------------------------------------

interface Figures {
  requests: number
  cases: number
  statuses: Map<string, number>
  times: Array<number>
  slowest: { ms: number; what: string }
  routes: Set<string>
}

const figures: Figures = {
  requests: 0,
  cases: 0,
  statuses: new Map(),
  times: [],
  slowest: { ms: 0, what: "" },
  routes: new Set()
}

const findings = {
  "5xx": [] as Array<string>,
  "no answer in time": [] as Array<string>,
  "written on refusal": [] as Array<string>,
  "not the error body": [] as Array<string>,
  /** The client sent every byte at once: a 408 means a server lost track of what it received. */
  "408 for a request sent whole": [] as Array<string>
}

const describeRequest = (target: string, r: WireRequest) =>
  `${r.method} ${target}${r.target.length > 160 ? `${r.target.slice(0, 160)}…` : r.target} [${r.label}]`

const record = (what: string, status: number | undefined, elapsedMs: number) => {
  figures.requests++
  const key = status === undefined ? "closed" : String(status)
  figures.statuses.set(key, (figures.statuses.get(key) ?? 0) + 1)
  figures.times.push(elapsedMs)
  if (elapsedMs > figures.slowest.ms) figures.slowest = { ms: elapsedMs, what }
}

/** Whether `text` is `{"error":{"code","message","requestId"}}`. */
const isErrorBody = (text: string): boolean => {
  try {
    const body = JSON.parse(text)
    return typeof body?.error?.code === "string" && typeof body.error.message === "string" &&
      typeof body.error.requestId === "string"
  } catch {
    return false
  }
}

const diff = (before: Record<string, number>, after: Record<string, number>) =>
  Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t]).map((t) => `${t} ${before[t]}→${after[t]}`)
    .join(", ")

const checkAnswer = (
  what: string,
  status: number | undefined,
  text: string,
  elapsedMs: number,
  bound: number,
  ended?: string
) => {
  record(what, status, elapsedMs)
  if (elapsedMs > bound || (status === undefined && ended?.startsWith("no answer") === true)) {
    findings["no answer in time"].push(
      `${what}: ${status ?? ended} after ${Math.round(elapsedMs)} ms (bound ${bound} ms)`
    )
  }
  if (status !== undefined && status >= 500) findings["5xx"].push(`${what} → ${status} ${text.slice(0, 300)}`)
  if (status !== undefined && status >= 400 && status < 500 && !isErrorBody(text) && !what.startsWith("HEAD ")) {
    findings["not the error body"].push(`${what} → ${status} ${JSON.stringify(text.slice(0, 200))}`)
  }
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

const ok = (what: string, reply: { status: number; text: string }, status: number) => {
  if (reply.status !== status) throw new Error(`fixture ${what}: ${reply.status} ${reply.text}`)
}

/** A tenant with one of everything the routes refer to, made through the API. */
const makeFixtures = Effect.gen(function*() {
  const { gateway: g } = yield* TestPlatform.TestPlatformUrls
  const account = yield* signup(g)
  const { key } = yield* createKey(g, account.token, { name: "fuzz" })
  const spare = yield* createKey(g, account.token, { name: "spare" })
  const auth = { token: key }
  ok(
    "top-up",
    yield* post(`${g}/wallet/top-ups`, { token: account.token, json: { amount: 100_000, idempotencyKey: "seed" } }),
    201
  )
  const persona = (yield* get(`${g}/prompts/personas`, auth)).body.items[0].id as string
  const agent = yield* post(`${g}/agents`, { ...auth, json: { name: "Fuzz", agent_persona_id: persona } })
  ok("agent", agent, 201)
  const agentId = agent.body.id as string
  ok("webhook token", yield* post(`${g}/agents/${agentId}/webhook-token`, auth), 200)
  const number = yield* post(`${g}/voice-numbers`, {
    ...auth,
    json: { phoneNumber: "+14155550199", provider: "PROVIDER_A" }
  })
  ok("voice number", number, 201)
  const list = yield* post(`${g}/contact-lists`, { ...auth, json: { name: "Fuzz list" } })
  ok("list", list, 201)
  const contact = yield* post(`${g}/contact-lists/${list.body.id}/contacts`, {
    ...auth,
    json: { phoneNumber: refusedNumber(0), name: "Ada" }
  })
  ok("contact", contact, 201)
  const campaign = yield* post(`${g}/campaigns`, {
    ...auth,
    json: { name: "Fuzz campaign", agentId, voiceNumberId: number.body.id, contactListId: list.body.id }
  })
  ok("campaign", campaign, 201)
  const kb = yield* post(`${g}/knowledge-bases`, { ...auth, json: { kbKey: "fuzz-kb", kbName: "Fuzz KB" } })
  ok("knowledge base", kb, 201)
  const document = yield* post(`${g}/knowledge-bases/${kb.body.id}/sources`, {
    ...auth,
    json: { type: "TEXT", title: "Hours", text: "We are open from nine to six, Monday to Friday." }
  })
  ok("document", document, 201)
  const job = yield* post(`${g}/knowledge-bases/${kb.body.id}/ingestion-jobs`, auth)
  ok("ingestion job", job, 202)
  yield* waitUntil(
    get(`${g}/knowledge-bases/${kb.body.id}/ingestion-jobs/${job.body.jobId}`, auth),
    (r) => r.status === 200 && !["QUEUED", "RUNNING"].includes(r.body.status),
    "the fixture's ingestion job"
  )
  const chat = yield* post(`${g}/chatapp/campaigns`, {
    ...auth,
    json: { agentId, templates: [{ templateName: "call_followup", process: "OUTGOING", callStatus: "ANSWERED" }] }
  })
  ok("chat-app campaign", chat, 201)
  const sms = yield* post(`${g}/sms-agent/campaigns`, {
    ...auth,
    json: { agentId, templates: [{ callStatus: "ANSWERED", messageBody: "Thanks {{name}}" }] }
  })
  ok("SMS campaign", sms, 201)
  ok("chat-app webhook token", yield* post(`${g}/chatapp/webhook-token`, auth), 200)
  const dncPhone = "+14155550177"
  ok("DNC entry", yield* post(`${g}/dnc`, { ...auth, json: { phoneNumber: dncPhone, reason: "fuzz" } }), 201)
  const call = yield* post(`${g}/channels/voice/call`, {
    ...auth,
    json: { agentId, voiceNumberId: number.body.id, toNumber: refusedNumber(0) }
  })
  ok("call", call, 202)
  yield* waitUntil(
    get(`${g}/calls/${call.body.sessionId}`, auth),
    (r) => r.status === 200 && r.body.status === "ENDED",
    "the fixture's call to end"
  )
  return {
    key,
    session: account.token,
    email: account.email,
    password: "correct horse battery",
    tenantId: account.tenantId!,
    spareKeyId: spare.id,
    personaId: persona,
    agentId,
    voiceNumberId: number.body.id,
    listId: list.body.id,
    contactId: contact.body.id,
    campaignId: campaign.body.id,
    kbId: kb.body.id,
    documentId: document.body.id,
    jobId: job.body.jobId,
    sessionId: call.body.sessionId,
    chatCampaignId: chat.body.id,
    smsCampaignId: sms.body.id,
    dncPhone,
    twilioAuthToken: TWILIO_TOKEN,
    telnyxPrivateKey: TELNYX_KEYS.privateKey,
    chatAppSecret: APP_SECRET,
    publicUrl: PUBLIC_URL
  } satisfies Fixtures
})

const knowledge = { vectorStore: TestChroma.layer }

describe("fuzz: every route, hostile input, through the gateway and straight to its service", () => {
  layer(
    TestPlatform.layer({
      httpTimeouts: TIMEOUTS,
      logLevel: LogLevel.Error,
      runtime: { knowledge },
      twilioAuthToken: TWILIO_TOKEN,
      telnyxPublicKey: TELNYX_PUBLIC_KEY,
      chatAppAppSecret: APP_SECRET,
      publicUrl: PUBLIC_URL,
      // the keys' buckets out of the way; the addresses' small enough that the gateway's own 429 shows up
      protection: { apiKeyRate: { perSecond: 1_000, burst: 2_000 }, ipRate: { perSecond: 20, burst: 60 } }
    }),
    { timeout: 300_000, excludeTestServices: true }
  )((it) => {
    it.effect(
      "never a 5xx, never unanswered, nothing written on refusal, every 4xx in the error body",
      () =>
        Effect.gen(function*() {
          const started = performance.now()
          const urls = yield* TestPlatform.TestPlatformUrls
          const fixtures = yield* makeFixtures
          const runtime = yield* Effect.runtime<SqlClient.SqlClient>()
          const counts = () => Runtime.runPromise(runtime)(tableCounts)
          const origin = (url: string) => new URL(url).origin
          const targets = (endpoint: Endpoint) =>
            [
              ["gateway", origin(urls.gateway)],
              [endpoint.service, origin(urls[endpoint.service])]
            ] as const

          const sql = yield* SqlClient.SqlClient
          const liveCalls = () =>
            Runtime.runPromise(runtime)(
              sql<{ n: number }>`SELECT count(*)::int AS n FROM call_sessions WHERE status <> 'ENDED'`.pipe(
                Effect.map(([row]) => row!.n),
                Effect.orDie
              )
            )
          const api = (method: string, url: string, json?: unknown) =>
            fetch(url, {
              method,
              headers: {
                authorization: `Bearer ${fixtures.key}`,
                ...(json === undefined ? {} : { "content-type": "application/json" })
              },
              ...(json === undefined ? {} : { body: JSON.stringify(json) })
            }).then((r) => r.status)

          /**
           * Until no call is live and no table's row count has changed for half a second (at most 20 s):
           * the work a success started (a call, a campaign's dialing, an ingestion job) is over.
           */
          const settle = async () => {
            let last = await counts()
            let stableSince = performance.now()
            const deadline = performance.now() + 20_000
            while ((performance.now() - stableSince < 500 || (await liveCalls()) > 0) && performance.now() < deadline) {
              await new Promise((r) => setTimeout(r, 100))
              const now = await counts()
              if (diff(last, now) !== "") {
                last = now
                stableSince = performance.now()
              }
            }
            return last
          }

          /** Stops what a success of `endpoint` started that would write later, then waits for quiet. */
          const quiesce = async (endpoint: Endpoint, answer: string) => {
            if (
              endpoint.name === "POST /api/v1/channels/voice/call" || endpoint.name === "POST /api/v1/channels/web/call"
            ) {
              await api("POST", `${urls.comms}/calls/${JSON.parse(answer).sessionId}/hangup`)
            }
            if (
              endpoint.name === "POST /api/v1/campaigns/:id/schedule" ||
              endpoint.name === "POST /api/v1/campaigns/:id/resume"
            ) {
              // dialing (and redials, minutes later) would go on behind the next requests: scheduled far
              // away again, or paused when it already runs
              const campaign = `${urls.campaign}/campaigns/${fixtures.campaignId}`
              if ((await api("POST", `${campaign}/schedule`, { scheduledAt: "2099-01-01T00:00:00.000Z" })) !== 200) {
                await api("POST", `${campaign}/pause`)
              }
            }
            return settle()
          }

          // ---- the generated cases, one request at a time (row counts are compared around each) ----
          const ordered = [...endpoints].sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"))
          const generatedFrom = figures.times.length
          const cases: Array<readonly [Endpoint, Case]> = ordered.flatMap((endpoint, i) =>
            ONLY !== undefined && !ONLY.test(endpoint.name)
              ? []
              : fc.sample(caseArb(endpoint), { seed: (SEED + i * 7_919) % 2 ** 31, numRuns: RUNS }).map((c) =>
                [endpoint, c] as const
              )
          )
          figures.cases = cases.length
          yield* Effect.promise(async () => {
            let before = await settle()
            for (const [endpoint, c] of cases) {
              const r = requestOf(endpoint, c, fixtures)
              for (const [name, base] of targets(endpoint)) {
                figures.routes.add(endpoint.name)
                const what = describeRequest(`${name} `, r)
                const outcome = await send(base, r, ANSWER_BOUND_MS + 10_000)
                checkAnswer(what, outcome.status, outcome.text, outcome.elapsedMs, ANSWER_BOUND_MS, outcome.ended)
                if (outcome.status === 408) {
                  findings["408 for a request sent whole"].push(
                    `${what} → 408 after ${Math.round(outcome.elapsedMs)} ms`
                  )
                }
                if (VERBOSE) {
                  console.log(
                    `${what} → ${outcome.status ?? outcome.ended} in ${outcome.elapsedMs.toFixed(0)} ms\n  ` +
                      `${Buffer.from(r.body ?? []).toString("utf8").slice(0, 300)}\n  ${
                        JSON.stringify(r.headers)
                      }\n  ← ${outcome.text.slice(0, 300)}`
                  )
                }
                const status = outcome.status ?? 0
                if (status >= 200 && status < 300 && BACKGROUND.has(endpoint.name)) {
                  before = await quiesce(endpoint, outcome.text)
                  continue
                }
                const after = await counts()
                if ((outcome.status === undefined || status >= 400) && diff(before, after) !== "") {
                  findings["written on refusal"].push(
                    `${what} → ${outcome.status ?? outcome.ended}: ${diff(before, after)}`
                  )
                }
                before = after
              }
            }
          })

          const generatedTimes = figures.times.slice(generatedFrom)
          // nothing from here on may write: row counts are compared around all of it
          const beforeReads = yield* tableCounts

          // ---- the health checks and the API documents, on every server ----
          let documents = 0
          for (const base of [urls.gateway, urls["platform-core"], urls.comms, urls.campaign].map(origin)) {
            for (
              const target of [
                "/healthz",
                "/readyz",
                "/docs",
                "/api/v1/openapi.json",
                "/healthz?x=%00",
                "/docs/%ZZ",
                "/api/v1/openapi.json/.."
              ]
            ) {
              const r: WireRequest = { ...noKey(), target, label: "documents and health" }
              const outcome = yield* Effect.promise(() => send(base, r, ANSWER_BOUND_MS + 10_000))
              documents++
              checkAnswer(
                describeRequest(`${base} `, r),
                outcome.status,
                outcome.text,
                outcome.elapsedMs,
                ANSWER_BOUND_MS,
                outcome.ended
              )
            }
          }

          // ---- bodies cut short or stalled, on a sample of routes, all at once ----
          const withBodies = ordered.filter((e) => e.method !== "GET")
          const sampled = fc.sample(
            fc.shuffledSubarray(withBodies, {
              minLength: Math.min(TRANSPORT_ROUTES, withBodies.length),
              maxLength: Math.min(TRANSPORT_ROUTES, withBodies.length)
            }),
            {
              seed: SEED,
              numRuns: 1
            }
          )[0]!
          // the uploads always: their bodies go to a multipart parser, not the JSON reader
          for (const e of withBodies) if (e.body !== "json" && !sampled.includes(e)) sampled.push(e)
          const stalls = sampled.flatMap((endpoint) =>
            targets(endpoint).flatMap(([name, base]) => {
              const path = endpoint.path.replace(
                /:(\w+)/g,
                (_, p: string) => encodeURIComponent(fixtureFor(fixtures, endpoint.path, p))
              )
              const url = `${base}${path}`
              const credential = endpoint.credential === "session" ? fixtures.session : fixtures.key
              const type = endpoint.body === "multipart"
                ? "multipart/form-data; boundary=b"
                : endpoint.body === "form"
                ? "application/x-www-form-urlencoded"
                : "application/json"
              const body = endpoint.body === "multipart"
                ? "--b\r\ncontent-disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\ncontent-type: " +
                  "text/csv\r\n\r\nphone\n+1415"
                : endpoint.body === "form"
                ? "CallSid=CA1&CallStatus=ring"
                : "{\"name\":\"stalled\",\"metadata\":{\"a\":"
              const head = (framing: Record<string, string>) =>
                requestHead(endpoint.method, url, {
                  authorization: `Bearer ${credential}`,
                  "content-type": type,
                  ...framing
                })
              const what = (how: string) => `${how}: ${endpoint.method} ${name} ${path}`
              const framing = (label: string, text: string) =>
                [what(label), rawRequest(base, [text], { stopAfterMs: 30_000 })] as const
              const start = `${endpoint.method} ${
                new URL(url).pathname
              } HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${credential}\r\ncontent-type: ${type}\r\n`
              return [
                // framing node's parser refuses: answered in the error body, at once
                framing(
                  "Content-Length and chunked",
                  `${start}content-length: 4\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{}{}\r\n0\r\n\r\n`
                ),
                framing("two Content-Lengths", `${start}content-length: 2\r\ncontent-length: 3\r\n\r\n{}x`),
                framing("negative Content-Length", `${start}content-length: -1\r\n\r\n{}`),
                framing("invalid chunk size", `${start}transfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`),
                framing("folded header", `${start}x-folded: a\r\n b\r\ncontent-length: 2\r\n\r\n{}`),
                // a declared length never reached, and the client half-closes
                [
                  what("truncated, then half-closed"),
                  rawRequest(base, [head({ "content-length": String(body.length + 500) }) + body], {
                    endAfterSending: true,
                    stopAfterMs: 30_000
                  })
                ],
                // part of the body, then nothing: the body timeout
                [
                  what("stalled"),
                  rawRequest(base, [head({ "content-length": String(body.length + 500) }) + body], {
                    stopAfterMs: 30_000
                  })
                ],
                // a chunked body that stops between chunks
                [
                  what("stalled chunked"),
                  rawRequest(base, [
                    head({ "transfer-encoding": "chunked" }) + `${body.length.toString(16)}\r\n${body}\r\n`
                  ], { stopAfterMs: 30_000 })
                ]
              ] as const
            })
          )
          const beforeStalls = yield* tableCounts
          const answers = yield* Effect.all(stalls.map(([, answer]) => answer), { concurrency: "unbounded" })
          answers.forEach((answer: RawAnswer, i) => {
            checkAnswer(stalls[i]![0], answer.status, answer.body, answer.elapsedMs, BODY_TIMEOUT_MS + MARGIN_MS)
          })
          const afterStalls = yield* tableCounts
          if (diff(beforeStalls, afterStalls) !== "") {
            findings["written on refusal"].push(`cut-short and stalled bodies: ${diff(beforeStalls, afterStalls)}`)
          }

          // ---- the gateway's own refusals: an address's bucket emptied by requests without a key ----
          const burst = yield* Effect.all(
            Array.from(
              { length: 150 },
              () => Effect.promise(() => send(origin(urls.gateway), noKey(), ANSWER_BOUND_MS + 10_000))
            ),
            { concurrency: 50 }
          )
          for (const outcome of burst) {
            checkAnswer(
              "burst without a key: GET gateway /api/v1/agents",
              outcome.status,
              outcome.text,
              outcome.elapsedMs,
              ANSWER_BOUND_MS,
              outcome.ended
            )
          }
          const limited = burst.filter((o) => o.status === 429)
          const afterReads = yield* tableCounts
          if (diff(beforeReads, afterReads) !== "") {
            findings["written on refusal"].push(
              `health checks, documents, cut-short bodies and the burst: ${diff(beforeReads, afterReads)}`
            )
          }

          // ---- the figures ----
          const seconds = (performance.now() - started) / 1000
          const statuses = [...figures.statuses.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) =>
            `${s}: ${n}`
          ).join(", ")
          const fivexx = [...figures.statuses.entries()].filter(([s]) => s.startsWith("5")).reduce(
            (n, [, k]) => n + k,
            0
          )
          console.log([
            "",
            "fuzz figures",
            `  seed                 ${SEED}   (FC_SEED=${SEED} FUZZ_RUNS=${RUNS} to replay)`,
            `  routes × cases       ${figures.routes.size} routes × ${RUNS} cases × 2 targets (gateway, service) = ${
              figures.cases * 2
            } generated requests`,
            `  health and documents ${documents} GETs (gateway and each service)`,
            `  transport cases      ${stalls.length} (malformed framing, truncated, stalled, stalled chunked) on ` +
            `${sampled.length} routes × 2 targets`,
            `  rate-limit burst     ${burst.length} requests, ${limited.length} answered 429`,
            `  requests             ${figures.requests}`,
            `  statuses             ${statuses}`,
            `  5xx                  ${fivexx}`,
            `  answer time          generated requests: p50 ${percentile(generatedTimes, 50).toFixed(0)} ms, p99 ${
              percentile(generatedTimes, 99).toFixed(0)
            } ms, max ${percentile(generatedTimes, 100).toFixed(0)} ms`,
            `                       all requests: p99 ${percentile(figures.times, 99).toFixed(0)} ms, max ${
              figures.slowest.ms.toFixed(0)
            } ms (${figures.slowest.what.slice(0, 140)})`,
            `  findings             ${Object.entries(findings).map(([k, v]) => `${k}: ${v.length}`).join(", ")}`,
            `  duration             ${seconds.toFixed(1)} s`,
            ""
          ].join("\n"))
          for (const [kind, found] of Object.entries(findings)) {
            if (found.length > 0) console.log(`${kind}:\n${found.slice(0, 40).map((f) => `  ${f}`).join("\n")}`)
          }
          for (const [kind, found] of Object.entries(findings)) {
            assert.deepStrictEqual(found.slice(0, 25), [], `${kind} (${found.length}; FC_SEED=${SEED})`)
          }
          assert.isAbove(limited.length, 0, "the burst met the gateway's rate limit")
        }),
      Math.max(180_000, RUNS * 40_000)
    )
  })
})

/** A request the gateway charges to the client's address. */
const noKey = (): WireRequest => ({
  endpoint: endpoints[0]!,
  method: "GET",
  target: "/api/v1/agents",
  headers: {},
  body: undefined,
  chunked: false,
  label: "no credential"
})
