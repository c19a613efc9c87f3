/**
 * The dashboard's session and its API client: `@voiceagent/client` (openapi-fetch over the types
 * generated from the gateway's OpenAPI document) on the page's own origin, with the session token.
 * A 401 from any call ends the session and sends the user back to the login page.
 */
import { signal } from "@preact/signals"
import { createPlatformClient, multipart, type PlatformClient, type Schema } from "@voiceagent/client"
import { navigate } from "./router"

export type { Schema }

export interface Session {
  readonly token: string
  readonly expiresAt: string
  readonly email: string
}

const STORAGE_KEY = "voiceagent.session"

const restore = (): Session | null => {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null") as Session | null
    return stored !== null && Date.parse(stored.expiresAt) > Date.now() ? stored : null
  } catch {
    return null
  }
}

export const session = signal<Session | null>(restore())
/** A message for the login page: why the user was sent there. */
export const loginNotice = signal<string | null>(null)

let expiryTimer: ReturnType<typeof setTimeout> | undefined

export const startSession = (next: Session) => {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(next))
  session.value = next
  loginNotice.value = null
  watchExpiry()
}

export const endSession = (notice: string | null) => {
  localStorage.removeItem(STORAGE_KEY)
  session.value = null
  loginNotice.value = notice
  if (expiryTimer !== undefined) clearTimeout(expiryTimer)
  navigate("/login")
}

/** Sends the user to the login page when the session's token expires, before a call finds out. */
export const watchExpiry = () => {
  if (expiryTimer !== undefined) clearTimeout(expiryTimer)
  const current = session.value
  if (current === null) return
  // setTimeout's longest delay is about 24.8 days; a later expiry is checked again then
  const delay = Math.min(Date.parse(current.expiresAt) - Date.now(), 2_000_000_000)
  expiryTimer = setTimeout(() => {
    if (Date.parse(current.expiresAt) <= Date.now()) endSession("Your session has expired: log in again.")
    else watchExpiry()
  }, Math.max(0, delay))
}

/** An API client for the current session (or none, for sign-up and login). */
export const api = (): PlatformClient => {
  const current = session.value
  const client = createPlatformClient(location.origin, current === null ? {} : { token: current.token })
  client.use({
    onResponse({ response }) {
      if (response.status === 401 && session.value !== null) endSession("Your session has expired: log in again.")
      return response
    }
  })
  return client
}

export { multipart }

/** The API's error body: `{ error: { code, message, details } }`. */
export interface ApiError {
  readonly code: string
  readonly message: string
  readonly details?: unknown
}

/** The API's own words for a failed call; a network failure or a body of another shape says so. */
export const errorOf = (error: unknown, response?: Response): ApiError => {
  const body = (error as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error
  if (body !== undefined && typeof body.message === "string") {
    return { code: String(body.code ?? "ERROR"), message: body.message, details: body.details }
  }
  return {
    code: `HTTP_${response?.status ?? 0}`,
    message: `The request failed (${response?.status ?? "no response"}).`
  }
}

/** Runs an API call: its data, or throws an `ApiFailure` carrying the API's message. */
export class ApiFailure extends Error {
  constructor(readonly apiError: ApiError) {
    super(apiError.message)
    this.name = "ApiFailure"
  }
}

export const call = async <T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>
): Promise<T> => {
  let result: { data?: T; error?: unknown; response: Response }
  try {
    result = await request
  } catch (cause) {
    throw new ApiFailure({ code: "NETWORK", message: `The platform could not be reached: ${String(cause)}` })
  }
  if (result.error !== undefined || !result.response.ok) throw new ApiFailure(errorOf(result.error, result.response))
  return result.data as T
}

/** A one-time key for a request a retry must not repeat (top-ups). */
export const idempotencyKey = () => `dash-${crypto.randomUUID()}`

/** Integer minor units as money in `currency` (exponent from Intl: 2 for USD, 0 for JPY). */
export const money = (minor: number, currency = "USD") => {
  const format = new Intl.NumberFormat(undefined, { style: "currency", currency })
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2
  return format.format(minor / 10 ** digits)
}

export const when = (
  iso: string | null | undefined
) => (iso === null || iso === undefined ? "—" : new Date(iso).toLocaleString())

/** A page of a list as the API gives it. */
interface ListPage<T> {
  readonly items: ReadonlyArray<T>
  readonly totalPages: number
}

/** Every item of a paginated list, page after page: a picker does not stop silently at the first page. */
export const allPages = async <T>(load: (page: number) => Promise<ListPage<T>>): Promise<ReadonlyArray<T>> => {
  const items: Array<T> = []
  for (let page = 1;; page++) {
    const next = await load(page)
    items.push(...next.items)
    if (page >= next.totalPages || next.items.length === 0) return items
  }
}
