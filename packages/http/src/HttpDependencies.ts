import { Agents } from "@voiceagent/runner/Agents/Agents"
import { Calls } from "@voiceagent/runner/Calls/Calls"
import { InboundCalls } from "@voiceagent/runner/Calls/InboundCalls"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import { ContactLists } from "@voiceagent/runner/Contacts/ContactLists"
import { KnowledgeBases } from "@voiceagent/runner/Knowledge/KnowledgeBases"
import { MessageOutbox, MessagingSettings } from "@voiceagent/runner/Messaging/MessageOutbox"
import { MessagingCampaigns } from "@voiceagent/runner/Messaging/MessagingCampaigns"
import { RepositoriesLive } from "@voiceagent/runner/Repositories"
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
 * (agents, campaigns, calls, contact lists, knowledge bases), repositories, session tokens, authentication.
 */
export const HttpDependencies = (options: HttpDependenciesOptions) =>
  AuthMiddlewareLive.pipe(
    Layer.provideMerge(Authenticator.Default),
    Layer.provideMerge(Layer.mergeAll(
      Agents.Default,
      Campaigns.Default,
      Calls.Default,
      InboundCalls.Default,
      ContactLists.Default,
      KnowledgeBases.Default
    )),
    Layer.provideMerge(Layer.mergeAll(MessagingCampaigns.Default, MessageOutbox.Default)),
    Layer.provideMerge(RepositoriesLive),
    Layer.provideMerge(Layer.mergeAll(
      SessionTokens.layer(options.sessions),
      PublicUrl.layer(options.publicUrl),
      TwilioWebhookSecret.layer(options.twilioAuthToken ?? Option.none()),
      TelnyxWebhookKey.layer(options.telnyxPublicKey ?? Option.none()),
      ChatAppAppSecret.layer(options.chatAppAppSecret ?? Option.none()),
      // the HTTP side only records what the webhook reports; the dispatcher's settings live on the runners
      MessagingSettings.layer()
    ))
  )
