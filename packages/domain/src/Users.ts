import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { ApiKeyId, TenantId, UserId } from "./Ids.js"
import { ACCOUNT_LIMITS } from "./Limits.js"
import { Timestamp } from "./Timestamp.js"

export const Email = Schema.Trim.pipe(
  Schema.compose(Schema.Lowercase),
  Schema.filter((s) => s.length <= ACCOUNT_LIMITS.email && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), {
    message: () => "must be a valid e-mail address"
  }),
  Schema.annotations({ identifier: "Email", examples: ["ada@example.com"] })
)

export const Password = Schema.String.pipe(
  Schema.filter((s) => s.length >= ACCOUNT_LIMITS.password.min && s.length <= ACCOUNT_LIMITS.password.max, {
    message: () => `must be between ${ACCOUNT_LIMITS.password.min} and ${ACCOUNT_LIMITS.password.max} characters`
  }),
  Schema.annotations({ description: `${ACCOUNT_LIMITS.password.min} to ${ACCOUNT_LIMITS.password.max} characters` })
)

export const CompanyName = Schema.Trim.pipe(
  Schema.filter((s) => s.length >= 1 && s.length <= ACCOUNT_LIMITS.companyName, {
    message: () => `must be between 1 and ${ACCOUNT_LIMITS.companyName} characters`
  })
)

export class User extends Schema.Class<User>("User")({
  id: UserId,
  email: Schema.String,
  tenantId: Schema.NullOr(TenantId),
  createdAt: Timestamp
}) {}

export class Tenant extends Schema.Class<Tenant>("Tenant")({
  id: TenantId,
  name: Schema.String,
  currency: Schema.String.annotations({ description: "ISO 4217 currency of the tenant wallet" }),
  createdAt: Timestamp
}) {}

export class SignupRequest extends Schema.Class<SignupRequest>("SignupRequest")({
  email: Email,
  password: Password,
  companyName: Schema.optional(CompanyName)
}) {}

export class SignupResponse extends Schema.Class<SignupResponse>("SignupResponse")({
  token: Schema.String.annotations({ description: "Dashboard session token (JWT, HS256)" }),
  expiresAt: Timestamp,
  user: User,
  tenant: Schema.NullOr(Tenant)
}) {}

export class LoginRequest extends Schema.Class<LoginRequest>("LoginRequest")({
  email: Email,
  password: Schema.String
}) {}

export class LoginResponse extends Schema.Class<LoginResponse>("LoginResponse")({
  token: Schema.String,
  expiresAt: Timestamp,
  user: User
}) {}

export class CreateTenantRequest extends Schema.Class<CreateTenantRequest>("CreateTenantRequest")({
  companyName: CompanyName
}) {}

export class UpdateTenantRequest extends Schema.Class<UpdateTenantRequest>("UpdateTenantRequest")({
  name: CompanyName
}) {}

export class Profile extends Schema.Class<Profile>("Profile")({
  user: User,
  tenant: Schema.NullOr(Tenant),
  credential: Schema.Struct({
    type: Schema.Literal("api_key", "session"),
    apiKeyId: Schema.NullOr(ApiKeyId)
  })
}) {}

export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()(
  "InvalidCredentials",
  errorFields("Invalid email or password")
) {
  static readonly http: HttpError<InvalidCredentials> = httpError(this, { status: 401, code: "INVALID_CREDENTIALS" })
}

export class EmailTaken extends Schema.TaggedError<EmailTaken>()(
  "EmailTaken",
  errorFields("An account with this e-mail address already exists")
) {
  static readonly http: HttpError<EmailTaken> = httpError(this, { status: 409, code: "EMAIL_TAKEN" })
}

export class TenantAlreadyExists extends Schema.TaggedError<TenantAlreadyExists>()(
  "TenantAlreadyExists",
  errorFields("This user already belongs to a tenant")
) {
  static readonly http: HttpError<TenantAlreadyExists> = httpError(this, { status: 409, code: "TENANT_EXISTS" })
}
