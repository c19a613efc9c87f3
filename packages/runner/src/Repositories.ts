/**
 * Every repository of the runner in one layer: what the runtime, the HTTP services' dependencies and the
 * testing kit provide, once each, instead of lists of their own. A repository reads and writes its tables
 * and nothing else; it needs the database (`SqlClient`) and, for the prices (`RateCards`, `CallSpecs`), the
 * platform's settings. The services built on them (`Calls`, `Campaigns`, `ContactLists`, `KnowledgeBases`,
 * …) declare the repositories they use as their layer's `dependencies`, so each stands on its own as well
 * (docs/decisions/0036-composition.md).
 */
import * as Layer from "effect/Layer"
import { AgentsRepo } from "./Agents/AgentsRepo.js"
import { ApiKeysRepo } from "./ApiKeys/ApiKeysRepo.js"
import { Ledger } from "./Billing/Ledger.js"
import { MessageCharges } from "./Billing/MessageCharges.js"
import { RateCards } from "./Billing/RateCards.js"
import { Reports } from "./Billing/Reports.js"
import { CallSessionsRepo } from "./CallRecords/CallSessionsRepo.js"
import { CallSpecs } from "./CallRecords/CallSpecs.js"
import { CallTransfersRepo } from "./CallRecords/CallTransfersRepo.js"
import { VoicemailRepo } from "./CallRecords/VoicemailRepo.js"
import { InboundCallsRepo } from "./Calls/InboundCalls.js"
import { CampaignsRepo } from "./Campaigns/CampaignsRepo.js"
import { DeadLetters } from "./Cluster/DeadLetters.js"
import { ContactListsRepo } from "./Contacts/ContactListsRepo.js"
import { ContactsRepo } from "./Contacts/ContactsRepo.js"
import { KnowledgeBasesRepo } from "./Knowledge/KnowledgeBasesRepo.js"
import { IdempotentRequests } from "./Sql/IdempotentRequests.js"
import { UsersRepo } from "./Users/UsersRepo.js"
import { VoiceNumbersRepo } from "./VoiceNumbers/VoiceNumbersRepo.js"
import { Webhooks } from "./Webhooks/Webhooks.js"

export const RepositoriesLive = Layer.mergeAll(
  UsersRepo.Default,
  ApiKeysRepo.Default,
  AgentsRepo.Default,
  VoiceNumbersRepo.Default,
  ContactListsRepo.Default,
  ContactsRepo.Default,
  Ledger.Default,
  RateCards.Default,
  Reports.Default,
  MessageCharges.Default,
  CallSessionsRepo.Default,
  CallSpecs.Default,
  CallTransfersRepo.Default,
  VoicemailRepo.Default,
  InboundCallsRepo.Default,
  CampaignsRepo.Default,
  KnowledgeBasesRepo.Default,
  IdempotentRequests.Default,
  Webhooks.Default,
  DeadLetters.Default
)
