/** A small HTTP client for tests: real requests over sockets with `fetch`. */
import * as Effect from "effect/Effect"

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
