/**
 * Authentication: who is calling, with what credential, for which tenant.
 *
 * Every route takes `Authorization: Bearer <credential>`, where the credential is an API key
 * (`aok_…`) or a dashboard session token (a JWT from `/auth/login`). Four middlewares combine the
 * two rules a route can have: whether API keys are accepted, and whether a tenant is required.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError, TenantMismatch } from "./ApiError.js"
import type { ApiKeyId, TenantId, UserId } from "./Ids.js"
import type { Tenant, User } from "./Users.js"

// ---------------------------------------------------------------------------
// Errors (messages are part of the contract)
// ---------------------------------------------------------------------------

export class MissingCredentials extends Schema.TaggedError<MissingCredentials>()(
  "MissingCredentials",
  errorFields("Missing Authorization header: send 'Authorization: Bearer <API key or session token>'")
) {
  static readonly http: HttpError<MissingCredentials> = httpError(this, { status: 401, code: "MISSING_CREDENTIALS" })
}

export class MalformedAuthorization extends Schema.TaggedError<MalformedAuthorization>()(
  "MalformedAuthorization",
  errorFields("Malformed Authorization header: expected 'Bearer <API key or session token>'")
) {
  static readonly http: HttpError<MalformedAuthorization> = httpError(this, {
    status: 401,
    code: "MALFORMED_AUTHORIZATION"
  })
}

export class InvalidApiKey
  extends Schema.TaggedError<InvalidApiKey>()("InvalidApiKey", errorFields("Invalid API key"))
{
  static readonly http: HttpError<InvalidApiKey> = httpError(this, {
    status: 401,
    code: "INVALID_API_KEY",
    description: "The key does not exist, was revoked, or was sent with the word Bearer inside the pasted value"
  })
}

export class ApiKeyExpired
  extends Schema.TaggedError<ApiKeyExpired>()("ApiKeyExpired", errorFields("API key has expired"))
{
  static readonly http: HttpError<ApiKeyExpired> = httpError(this, { status: 401, code: "API_KEY_EXPIRED" })
}

export class InvalidSession extends Schema.TaggedError<InvalidSession>()(
  "InvalidSession",
  errorFields("Invalid session token")
) {
  static readonly http: HttpError<InvalidSession> = httpError(this, { status: 401, code: "INVALID_SESSION" })
}

export class SessionExpired extends Schema.TaggedError<SessionExpired>()(
  "SessionExpired",
  errorFields("Session token has expired")
) {
  static readonly http: HttpError<SessionExpired> = httpError(this, { status: 401, code: "SESSION_EXPIRED" })
}

export class TenantContextRequired extends Schema.TaggedError<TenantContextRequired>()(
  "TenantContextRequired",
  errorFields("Tenant context required")
) {
  static readonly http: HttpError<TenantContextRequired> = httpError(this, {
    status: 403,
    code: "TENANT_CONTEXT_REQUIRED",
    description: "The credential's user belongs to no tenant"
  })
}

export class ApiKeyNotAllowed extends Schema.TaggedError<ApiKeyNotAllowed>()(
  "ApiKeyNotAllowed",
  errorFields("API key authentication is not allowed for this route")
) {
  static readonly http: HttpError<ApiKeyNotAllowed> = httpError(this, {
    status: 403,
    code: "API_KEY_NOT_ALLOWED",
    description: "The route accepts only dashboard (JWT) sessions"
  })
}

export const AuthenticationFailure = Schema.Union(
  MissingCredentials.http,
  MalformedAuthorization.http,
  InvalidApiKey.http,
  ApiKeyExpired.http,
  InvalidSession.http,
  SessionExpired.http,
  TenantContextRequired.http,
  ApiKeyNotAllowed.http
)

export type AuthenticationFailure =
  | MissingCredentials
  | MalformedAuthorization
  | InvalidApiKey
  | ApiKeyExpired
  | InvalidSession
  | SessionExpired
  | TenantContextRequired
  | ApiKeyNotAllowed

/** Tenant-scoped routes also refuse a `tenantId` (body or query) that is not the credential's. */
export const TenantAuthenticationFailure = Schema.Union(AuthenticationFailure, TenantMismatch.http)

export type TenantAuthenticationFailure = AuthenticationFailure | TenantMismatch

// ---------------------------------------------------------------------------
// Who is calling
// ---------------------------------------------------------------------------

export type CredentialKind = "api_key" | "session"

export interface Principal {
  readonly userId: UserId
  readonly tenantId: TenantId | null
  readonly via: CredentialKind
  /** Set when the credential is an API key. */
  readonly apiKeyId: ApiKeyId | null
  /**
   * The caller's user and tenant, read with the credential (one statement): handlers answering with them reuse these.
   */
  readonly user: User
  readonly tenant: Tenant | null
}

export interface TenantPrincipal extends Principal {
  readonly tenantId: TenantId
}

export class CurrentUser extends Context.Tag("Auth/CurrentUser")<CurrentUser, Principal>() {}

export class CurrentTenant extends Context.Tag("Auth/CurrentTenant")<CurrentTenant, TenantPrincipal>() {}

const bearer = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "An API key (`aok_…`, created at `POST /api-keys`) or a dashboard session token (JWT from `POST /auth/login`)"
  )
)

/** Any credential; the caller may belong to no tenant. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Auth/Authentication", {
  provides: CurrentUser,
  failure: AuthenticationFailure,
  security: { bearer }
}) {}

/** Dashboard sessions only: API keys get 403. */
export class SessionAuthentication extends HttpApiMiddleware.Tag<SessionAuthentication>()(
  "Auth/SessionAuthentication",
  { provides: CurrentUser, failure: AuthenticationFailure, security: { bearer } }
) {}

/** Any credential whose user belongs to a tenant. */
export class TenantAuthentication extends HttpApiMiddleware.Tag<TenantAuthentication>()(
  "Auth/TenantAuthentication",
  { provides: CurrentTenant, failure: TenantAuthenticationFailure, security: { bearer } }
) {}

/** Dashboard sessions of a user who belongs to a tenant. */
export class SessionTenantAuthentication extends HttpApiMiddleware.Tag<SessionTenantAuthentication>()(
  "Auth/SessionTenantAuthentication",
  { provides: CurrentTenant, failure: TenantAuthenticationFailure, security: { bearer } }
) {}
