/**
 * A typed client for the platform's HTTP API: `openapi-fetch` over the types openapi-typescript
 * generates from the gateway's OpenAPI document (`schema.ts`, `npm run client:generate`).
 *
 * ```ts
 * const platform = createPlatformClient("http://127.0.0.1:3000", { apiKey: "aok_…" })
 * const { data, error } = await platform.GET("/api/v1/agents", { params: { query: { page: 1, pageSize: 20 } } })
 * ```
 *
 * Paths are the gateway's full paths (`/api/v1/…`); `baseUrl` is the gateway's origin.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch"
import type { components, operations, paths } from "./schema.js"

export type { components, operations, paths }

/** A resource or body schema of the API by name, e.g. `Schema<"Agent">`. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name]

export type PlatformClient = Client<paths>

export interface PlatformClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** An API key (`aok_…`), sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: string | undefined
  /** A dashboard session token (the JWT from sign-up or login), sent the same way. */
  readonly token?: string | undefined
}

/**
 * A client for the gateway at `baseUrl` (its origin, e.g. `http://127.0.0.1:3000`). With `apiKey`
 * or `token` every request carries that credential unless it sets its own `authorization` header.
 */
export const createPlatformClient = (baseUrl: string, options: PlatformClientOptions = {}): PlatformClient => {
  const { apiKey, token, ...clientOptions } = options
  if (apiKey !== undefined && token !== undefined) {
    throw new TypeError("createPlatformClient: give apiKey or token, not both")
  }
  const client = createClient<paths>({ ...clientOptions, baseUrl: baseUrl.replace(/\/+$/, "") })
  const credential = apiKey ?? token
  if (credential !== undefined) {
    client.use({
      onRequest({ request }) {
        if (!request.headers.has("authorization")) request.headers.set("authorization", `Bearer ${credential}`)
        return request
      }
    })
  }
  return client
}

/**
 * A `bodySerializer` for the multipart endpoints (CSV and document uploads): each field becomes
 * one part per value, files (`Blob`/`File`) as file parts, anything else as text.
 *
 * ```ts
 * const csv = new File(["phone,name\n+14155550100,Ada\n"], "contacts.csv", { type: "text/csv" })
 * await platform.POST("/api/v1/contact-lists/{id}/upload", {
 *   params: { path: { id: listId } },
 *   body: { file: [csv] },
 *   bodySerializer: multipart
 * })
 * ```
 */
export const multipart = (body: unknown): FormData => {
  if (body instanceof FormData) return body
  const form = new FormData()
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined) continue
      if (item instanceof Blob) form.append(name, item, item instanceof File ? item.name : name)
      else form.append(name, typeof item === "string" ? item : JSON.stringify(item))
    }
  }
  return form
}
