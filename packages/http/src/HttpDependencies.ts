import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { ApiKeysRepo } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { RateCards } from "@voiceagent/runner/Billing/RateCards"
import { Reports } from "@voiceagent/runner/Billing/Reports"
import { CallSessionsRepo } from "@voiceagent/runner/CallRecords/CallSessionsRepo"
import { CallSpecs } from "@voiceagent/runner/CallRecords/CallSpecs"
import { Calls } from "@voiceagent/runner/Calls/Calls"
import { InboundCallsRepo } from "@voiceagent/runner/Calls/InboundCalls"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import { CampaignsRepo } from "@voiceagent/runner/Campaigns/CampaignsRepo"
import { ContactLists } from "@voiceagent/runner/Contacts/ContactLists"
import { ContactListsRepo } from "@voiceagent/runner/Contacts/ContactListsRepo"
import { ContactsRepo } from "@voiceagent/runner/Contacts/ContactsRepo"
import { KnowledgeBases } from "@voiceagent/runner/Knowledge/KnowledgeBases"
import { MessageOutbox, MessagingSettings } from "@voiceagent/runner/Messaging/MessageOutbox"
import { MessagingCampaigns } from "@voiceagent/runner/Messaging/MessagingCampaigns"
import { IdempotentRequests } from "@voiceagent/runner/Sql/IdempotentRequests"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import { Webhooks } from "@voiceagent/runner/Webhooks/Webhooks"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as crypto from "node:crypto"
import { AuthMiddlewareLive } from "./Auth/AuthenticationLive.js"
import { Authenticator } from "./Auth/Authenticator.js"
import { SessionTokens, type SessionTokensConfig } from "./Auth/SessionTokens.js"
import { ChatAppAppSecret } from "./Campaign/MessagingHttp.js"
import { TwilioWebhookSecret } from "./Comms/CallsHttp.js"
import { TelnyxWebhookKey } from "./Comms/TelnyxWebhookHttp.js"
import { PublicUrl } from "./PublicUrl.js"

export interface HttpDependenciesOptions {
  readonly sessions: SessionTokensConfig
  /** PUBLIC_URL; the gateway's address when unset. */
  readonly publicUrl?: string | undefined
  /** Verifies Twilio's status callbacks when Twilio serves a provider. */
  readonly twilioAuthToken?: Option.Option<Redacted.Redacted> | undefined
  /** Verifies Telnyx's webhooks when Telnyx serves a provider (`TELNYX_PUBLIC_KEY`). */
  readonly telnyxPublicKey?: Option.Option<crypto.KeyObject> | undefined
  /** Verifies the chat-app platform's notifications (`CHATAPP_APP_SECRET`). */
  readonly chatAppAppSecret?: Option.Option<Redacted.Redacted> | undefined
}

/**
 * What the HTTP services need besides a database, the platform settings, a cluster node (`Sharding`,
 * to reach entities), the knowledge services and the recordings: the runner's use-case services
 * (campaigns, calls, contact lists, knowledge bases), repositories, session tokens, authentication.
 */
export const HttpDependencies = (options: HttpDependenciesOptions) =>
  AuthMiddlewareLive.pipe(
    Layer.provideMerge(Authenticator.Default),
    Layer.provideMerge(Layer.mergeAll(Campaigns.Default, Calls.Default, ContactLists.Default, KnowledgeBases.Default)),
    Layer.provideMerge(Layer.mergeAll(MessagingCampaigns.Default, MessageOutbox.Default)),
    Layer.provideMerge(Layer.mergeAll(
      UsersRepo.Default,
      ApiKeysRepo.Default,
      AgentsRepo.Default,
      VoiceNumbersRepo.Default,
      ContactListsRepo.Default,
      ContactsRepo.Default,
      Ledger.Default,
      RateCards.Default,
      Reports.Default,
      CallSessionsRepo.Default,
      CallSpecs.Default,
      InboundCallsRepo.Default,
      CampaignsRepo.Default,
      IdempotentRequests.Default,
      Webhooks.Default,
      SessionTokens.layer(options.sessions),
      PublicUrl.layer(options.publicUrl),
      TwilioWebhookSecret.layer(options.twilioAuthToken ?? Option.none()),
      TelnyxWebhookKey.layer(options.telnyxPublicKey ?? Option.none()),
      ChatAppAppSecret.layer(options.chatAppAppSecret ?? Option.none()),
      // the HTTP side only records what the webhook reports; the dispatcher's settings live on the runners
      MessagingSettings.layer()
    ))
  )
