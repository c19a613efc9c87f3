import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { AgentNotFound } from "./Agents.js"
import { reportAllIssues } from "./ApiError.js"
import { ApiKey, ApiKeyNotFound, CreateApiKeyRequest, CreatedApiKey, ExpiryInPast } from "./ApiKeys.js"
import { Authentication, SessionAuthentication, SessionTenantAuthentication, TenantAuthentication } from "./Auth.js"
import {
  CallAnalytics,
  DateRange,
  IdempotencyKeyReused,
  RateCard,
  TopUpRequest,
  TopUpResult,
  Transaction,
  Usage,
  Wallet
} from "./Billing.js"
import { createAgentEndpoint } from "./CommsApi.js"
import { HealthGroup } from "./Health.js"
import { API_PREFIX, makeApi } from "./HttpApis.js"
import { ApiKeyId } from "./Ids.js"
import { Page, PageQuery } from "./Pagination.js"
import {
  CreateTenantRequest,
  EmailTaken,
  InvalidCredentials,
  LoginRequest,
  LoginResponse,
  Profile,
  SignupRequest,
  SignupResponse,
  Tenant,
  TenantAlreadyExists,
  UpdateTenantRequest
} from "./Users.js"

export class AuthGroup extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("signup", "/auth/signup")
      .annotate(OpenApi.Summary, "Sign up")
      .setPayload(reportAllIssues(SignupRequest))
      .addSuccess(SignupResponse, { status: 201 })
      .addError(EmailTaken.http)
      .annotate(OpenApi.Description, "Creates a dashboard user and, when companyName is given, a tenant it belongs to")
  )
  .add(
    HttpApiEndpoint.post("login", "/auth/login")
      .annotate(OpenApi.Summary, "Log in")
      .setPayload(reportAllIssues(LoginRequest))
      .addSuccess(LoginResponse)
      .addError(InvalidCredentials.http)
  )
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Dashboard sign-up and login (JWT issuance)")
{}

export class ProfileGroup extends HttpApiGroup.make("profile")
  .add(
    HttpApiEndpoint.get("getProfile", "/profile")
      .annotate(OpenApi.Summary, "Get the caller's profile")
      .addSuccess(Profile)
      .middleware(Authentication)
  )
  .add(
    HttpApiEndpoint.post("createTenant", "/tenants")
      .annotate(OpenApi.Summary, "Create a tenant")
      .setPayload(reportAllIssues(CreateTenantRequest))
      .addSuccess(Tenant, { status: 201 })
      .addError(TenantAlreadyExists.http)
      .middleware(SessionAuthentication)
      .annotate(OpenApi.Description, "Creates a tenant for a user who signed up without a company")
  )
  .add(
    HttpApiEndpoint.get("getTenant", "/tenant")
      .annotate(OpenApi.Summary, "Get the tenant")
      .addSuccess(Tenant)
      .middleware(TenantAuthentication)
      .annotate(OpenApi.Description, "The tenant of the credential")
  )
  .add(
    HttpApiEndpoint.patch("updateTenant", "/tenant")
      .annotate(OpenApi.Summary, "Rename the tenant")
      .setPayload(reportAllIssues(UpdateTenantRequest))
      .addSuccess(Tenant)
      .middleware(TenantAuthentication)
      .annotate(OpenApi.Description, "Renames the tenant of the credential")
  )
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "The caller's profile, and the tenant it acts for")
{}

const apiKeyIdParam = HttpApiSchema.param("id", ApiKeyId)

export class ApiKeysGroup extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.post("createApiKey", "/api-keys")
      .annotate(OpenApi.Summary, "Create an API key")
      .setPayload(reportAllIssues(CreateApiKeyRequest))
      .addSuccess(CreatedApiKey, { status: 201 })
      .addError(ExpiryInPast.http)
      .addError(AgentNotFound.http)
      .annotate(
        OpenApi.Description,
        "Creates a key. The full key and its signing secret are returned once, never again."
      )
  )
  .add(
    HttpApiEndpoint.get("listApiKeys", "/api-keys")
      .annotate(OpenApi.Summary, "List API keys")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(ApiKey).annotations({ identifier: "ApiKeyPage" }))
  )
  .add(
    HttpApiEndpoint.del("revokeApiKey")`/api-keys/${apiKeyIdParam}`
      .annotate(OpenApi.Summary, "Revoke an API key")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ApiKeyNotFound.http)
      .annotate(
        OpenApi.Description,
        "Revokes a key: the next request with it gets 401. Rotate by creating a new key, deploying it, then revoking " +
          "the old one."
      )
  )
  .middleware(SessionAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "API keys (dashboard sessions only)")
{}

export class WalletGroup extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("getWallet", "/wallet").addSuccess(Wallet).annotate(OpenApi.Summary, "Get the wallet balance")
  )
  .add(
    HttpApiEndpoint.get("listTransactions", "/billing/transactions")
      .annotate(OpenApi.Summary, "List wallet transactions")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(Transaction).annotations({ identifier: "TransactionPage" }))
      .annotate(
        OpenApi.Description,
        "The wallet's ledger, newest first: top-ups and charges, each with its idempotency key"
      )
  )
  .add(
    HttpApiEndpoint.get("getUsage", "/billing/usage")
      .annotate(OpenApi.Summary, "Get usage for a period")
      .setUrlParams(reportAllIssues(DateRange))
      .addSuccess(Usage)
      .annotate(OpenApi.Description, "Calls, billed minutes, messages and spend in [from, to)")
  )
  .add(
    HttpApiEndpoint.get("getCallAnalytics", "/analytics/calls")
      .annotate(OpenApi.Summary, "Get call analytics for a period")
      .setUrlParams(reportAllIssues(DateRange))
      .addSuccess(CallAnalytics)
      .annotate(OpenApi.Description, "Ended calls in [from, to) by outcome, answer rate and average talk time")
  )
  .add(
    HttpApiEndpoint.get("getRates", "/billing/rates")
      .annotate(OpenApi.Summary, "Get the rate card")
      .addSuccess(RateCard)
      .annotate(OpenApi.Description, "The tenant's prices: its own rate card, or the platform defaults")
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Wallet, billing and analytics")
{}

export class TopUpsGroup extends HttpApiGroup.make("topUps")
  .add(
    HttpApiEndpoint.post("topUp", "/wallet/top-ups")
      .annotate(OpenApi.Summary, "Top up the wallet")
      .setPayload(reportAllIssues(TopUpRequest))
      .addSuccess(TopUpResult, { status: 201 })
      .addError(IdempotencyKeyReused.http)
      .annotate(
        OpenApi.Description,
        "Adds funds (dashboard sessions only). The same idempotencyKey and amount again answers the first top-up; " +
          "another amount with that key is refused."
      )
  )
  .middleware(SessionTenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Wallet top-ups (dashboard sessions only)")
{}

/** `POST /agents` answers on platform core too, as the spec shows it there. */
export class CoreAgentsGroup extends HttpApiGroup.make("coreAgents")
  .add(createAgentEndpoint)
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "POST /agents, also answered by platform core")
{}

export class PlatformCoreApi extends makeApi("platform-core")
  .add(HealthGroup)
  .add(AuthGroup)
  .add(ProfileGroup)
  .add(ApiKeysGroup)
  .add(CoreAgentsGroup)
  .add(WalletGroup)
  .add(TopUpsGroup)
  .annotate(OpenApi.Title, "Voice Agent Platform — platform core")
  .annotate(OpenApi.Version, "1.0.0")
{}
