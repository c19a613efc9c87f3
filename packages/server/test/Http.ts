/** A small HTTP client for tests: real requests over sockets with `fetch`. */
import * as Effect from "effect/Effect"
import * as net from "node:net"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

export interface RequestOptions {
  readonly token?: string
  readonly json?: unknown
  readonly body?: NonNullable<RequestInit["body"]>
  readonly headers?: Record<string, string>
}

export const request = (method: string, url: string, options: RequestOptions = {}): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`
    let body = options.body
    if (options.json !== undefined) {
      headers["content-type"] = "application/json"
      body = JSON.stringify(options.json)
    }
    const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, text, body: parsed }
  })

export const get = (url: string, options?: RequestOptions) => request("GET", url, options)
export const post = (url: string, options?: RequestOptions) => request("POST", url, options)
export const patch = (url: string, options?: RequestOptions) => request("PATCH", url, options)
export const del = (url: string, options?: RequestOptions) => request("DELETE", url, options)

let counter = 0
export const uniqueEmail = (label = "user") => `${label}-${Date.now()}-${++counter}@example.com`

export interface Account {
  readonly token: string
  readonly userId: string
  readonly tenantId: string | null
  readonly email: string
}

export const signup = (base: string, options: { readonly companyName?: string | null } = {}) =>
  Effect.gen(function*() {
    const email = uniqueEmail()
    const companyName = options.companyName === undefined ? "Acme Voice" : options.companyName
    const reply = yield* post(`${base}/auth/signup`, {
      json: { email, password: "correct horse battery", ...(companyName === null ? {} : { companyName }) }
    })
    if (reply.status !== 201) return yield* Effect.dieMessage(`signup failed: ${reply.status} ${reply.text}`)
    return {
      token: reply.body.token as string,
      userId: reply.body.user.id as string,
      tenantId: reply.body.tenant?.id ?? null,
      email
    } satisfies Account
  })

export const createKey = (base: string, token: string, body: Record<string, unknown> = { name: "test key" }) =>
  Effect.gen(function*() {
    const reply = yield* post(`${base}/api-keys`, { token, json: body })
    if (reply.status !== 201) return yield* Effect.dieMessage(`key creation failed: ${reply.status} ${reply.text}`)
    return reply.body as { id: string; key: string; prefix: string; signingSecret: string }
  })

/** What placing a call needs: a signed-up account with funds, an API key, an agent and a voice number. */
export interface CallReady {
  readonly account: Account
  readonly key: string
  readonly signingSecret: string
  readonly agentId: string
  readonly voiceNumberId: string
}

/**
 * Signs up through `gateway`, creates a key (`keyBody`), tops the wallet up with `amount`, and creates an
 * agent and the voice number +14155550199 on `provider`; `api` (default the gateway) serves the
 * agent and number routes.
 */
export const callReady = (
  gateway: string,
  provider: "PROVIDER_A" | "PROVIDER_B",
  options: { readonly keyBody?: Record<string, unknown>; readonly amount?: number; readonly api?: string } = {}
) =>
  Effect.gen(function*() {
    const api = options.api ?? gateway
    const account = yield* signup(gateway)
    const created = yield* createKey(gateway, account.token, options.keyBody ?? { name: "k" })
    const key = created.key
    const topUp = { amount: options.amount ?? 1000, idempotencyKey: "seed" }
    const topped = yield* post(`${gateway}/wallet/top-ups`, { token: account.token, json: topUp })
    if (topped.status !== 201) return yield* Effect.dieMessage(`top-up failed: ${topped.status} ${topped.text}`)
    const persona = (yield* get(`${api}/prompts/personas`, { token: key })).body.items[0]
    const agent = (yield* post(`${api}/agents`, { token: key, json: { name: "A", agent_persona_id: persona.id } })).body
    const number =
      (yield* post(`${api}/voice-numbers`, { token: key, json: { phoneNumber: "+14155550199", provider } })).body
    return {
      account,
      key,
      signingSecret: created.signingSecret,
      agentId: agent.id as string,
      voiceNumberId: number.id as string
    } satisfies CallReady
  })

/**
 * A campaign call window open every day, all day, as far as a window can be: one ends at 23:59 at
 * the latest (exclusive), so a UTC window is shut for the last minute of every UTC day, and a test
 * that ran then would wait for a dial that never comes. The timezone is picked so that the hour now
 * (on the real clock the platform runs on) is between 00:00 and 11:59 there, half a day from the close.
 */
export const openAllDay = () => ({
  timezone: new Date().getUTCHours() < 12 ? "UTC" : "Etc/GMT+12",
  callWindowStart: "00:00",
  callWindowEnd: "23:59",
  callDays: [1, 2, 3, 4, 5, 6, 7]
})

/** What a failed wait last saw, short enough for a failure message. */
export const describeLast = (value: unknown) => {
  const text = typeof value === "string" ? value : JSON.stringify(value)
  return text === undefined ? String(value) : text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text
}

/**
 * Reads every 100 ms until `done` holds, for up to `seconds` of real time (30 unless given: generous,
 * the wait ends as soon as `done` holds, and within a test's own 60 s); dies naming `what` and the last
 * value read otherwise.
 */
export const waitUntil = <A>(read: Effect.Effect<A>, done: (a: A) => boolean, what: string, seconds = 30) =>
  Effect.gen(function*() {
    // elapsed real time, not a date: performance.now() is monotonic
    const deadline = performance.now() + seconds * 1000
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (performance.now() >= deadline) {
        return yield* Effect.dieMessage(`not reached within ${seconds} s: ${what}; last: ${describeLast(value)}`)
      }
      yield* Effect.sleep("100 millis")
    }
  })

/**
 * A port free right now, for a server a test must name before it starts (the public URL a fake
 * carrier calls back). Taken below Linux's ephemeral range (32768 and up), where the OS picks the
 * ports of outgoing connections and of `listen(0)`: a port from there, freed and bound a moment
 * later, can go to any connection the other test files open in between (seen under load as
 * EADDRINUSE).
 */
export const portToName = async (host = "127.0.0.1"): Promise<number> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer()
      server.once("error", () => resolve(false))
      server.listen(port, host, () => server.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error("no free port below the ephemeral range")
}
