/**
 * Generated from the gateway's OpenAPI document (OpenApi.fromApi(PlatformApi), as served at
 * /api/v1/openapi.json) by openapi-typescript. Do not edit: regenerate with
 *
 *   npm run client:generate
 *
 * A test (packages/client/test/Schema.test.ts) fails when this file differs from what the
 * current contract generates.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness probe */
        get: operations["health.healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness probe */
        get: operations["health.readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign up
         * @description Creates a dashboard user and, when companyName is given, a tenant it belongs to
         */
        post: operations["auth.signup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in */
        post: operations["auth.login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the caller's profile */
        get: operations["profile.getProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a tenant
         * @description Creates a tenant for a user who signed up without a company
         */
        post: operations["profile.createTenant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the tenant
         * @description The tenant of the credential
         */
        get: operations["profile.getTenant"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Rename the tenant
         * @description Renames the tenant of the credential
         */
        patch: operations["profile.updateTenant"];
        trace?: never;
    };
    "/api/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API keys */
        get: operations["apiKeys.listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description Creates a key. The full key and its signing secret are returned once, never again.
         */
        post: operations["apiKeys.createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Revokes a key: the next request with it gets 401. Rotate by creating a new key, deploying it, then revoking the old one.
         */
        delete: operations["apiKeys.revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the wallet balance */
        get: operations["wallet.getWallet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List wallet transactions
         * @description The wallet's ledger, newest first: top-ups and charges, each with its idempotency key
         */
        get: operations["wallet.listTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get usage for a period
         * @description Calls, billed minutes, messages and spend in [from, to)
         */
        get: operations["wallet.getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/analytics/calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get call analytics for a period
         * @description Ended calls in [from, to) by outcome, answer rate and average talk time
         */
        get: operations["wallet.getCallAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/billing/rates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the rate card
         * @description The tenant's prices: its own rate card, or the platform defaults
         */
        get: operations["wallet.getRates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/wallet/top-ups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Top up the wallet
         * @description Adds funds (dashboard sessions only). The same idempotencyKey and amount again answers the first top-up; another amount with that key is refused.
         */
        post: operations["topUps.topUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/prompts/personas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List personas */
        get: operations["personas.listPersonas"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents */
        get: operations["agents.listAgents"];
        put?: never;
        /**
         * Create an agent
         * @description Creates a minimal agent from a persona (prompt and greeting copied from it). The answer is the full agent: `id` is the channel id used for calls and campaigns, `agent_id` (also `brain.id`) the underlying brain id.
         */
        post: operations["agents.createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an agent */
        get: operations["agents.getAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an agent
         * @description Changes only the fields supplied. `metadata` and `settings` are merged (RFC 7396: null removes a key). Voice settings need `channel: VOICE`. Enabling the chat-app channel (connectionId and settings.phoneNumberId) needs POST /agents/{id}/webhook-token first. `settings.languageCode` (a tag such as hi_IN) is the agent's language: after a call, its chat-app campaign sends the template in it unless one in the contact's language is mapped. `is_active: false` deactivates the agent. `knowledgeBaseIds` replaces the knowledge bases the agent answers from (at most 10, the tenant's own).
         */
        patch: operations["agents.updateAgent"];
        trace?: never;
    };
    "/api/v1/agents/{id}/webhook-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate an agent's webhook token
         * @description Generates the agent's webhook verify token; calling it again returns the same token
         */
        post: operations["agents.createAgentWebhookToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/voice-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List voice numbers */
        get: operations["voiceNumbers.listVoiceNumbers"];
        put?: never;
        /** Register a voice number */
        post: operations["voiceNumbers.createVoiceNumber"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/voice-numbers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a voice number */
        get: operations["voiceNumbers.getVoiceNumber"];
        put?: never;
        post?: never;
        /** Delete a voice number */
        delete: operations["voiceNumbers.deleteVoiceNumber"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/channels/chatapp/agents/{agentId}/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify an agent's chat-app webhook subscription
         * @description Subscription verification by the messaging platform (no API key): answers hub.challenge as plain text when hub.mode is subscribe and hub.verify_token is the agent's webhook token; 403 otherwise.
         */
        get: operations["agentWebhook.verifyAgentWebhook"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/channels/voice/call": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Place an outbound call
         * @description Places an outbound call with an active agent, from one of the tenant's voice numbers. Funds for the first reservation chunk are held at once (402 when the available balance is short; 429 above the concurrent-call limit); the call is billed by the second, rounded up to the billing increment, when it ends.
         */
        post: operations["calls.placeCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/call-logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List call logs
         * @description Newest first. Filters: agentId, campaignId, status (a status or an outcome), from, to
         */
        get: operations["calls.listCallLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a call session
         * @description The whole session: times, figures, event timeline and transcript
         */
        get: operations["calls.getCall"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{sessionId}/hangup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hang up a call
         * @description Ends a live call (before the answer: CANCELED); on an ended call, answers its state
         */
        post: operations["calls.hangupCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{sessionId}/transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transfer a live call
         * @description Extension: the carrier takes the call in progress to toNumber (a cold transfer: at once); the agent's part, and the session's billing, end there (endReason transferred). 409 CALL_NOT_LIVE unless the call is in progress (answers the transfer made, when the call was transferred to the same number before); 409 TRANSFER_FAILED when the carrier refuses or cannot transfer (a web call).
         */
        post: operations["calls.transferCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/calls/{sessionId}/recording": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a call's recording
         * @description Extension: the call's recording, a stereo 16-bit PCM WAV file (left: the caller; right: the agent as the caller heard it; 8 kHz for phone calls, 16 kHz for web calls). 404 when the call is not the tenant's, was not recorded, is still going on, or its recording was deleted
         */
        get: operations["calls.getCallRecording"];
        put?: never;
        post?: never;
        /**
         * Delete a call's recording
         * @description Extension: deletes the recording's file and its record; 404 when there is none for the tenant
         */
        delete: operations["calls.deleteCallRecording"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook deliveries
         * @description Call-result webhook deliveries, newest first
         */
        get: operations["calls.listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/channels/web/call": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a web call
         * @description Starts a call with an active agent that a browser or an SDK joins on a WebSocket: open `url` and send {"type":"start","token":…} first, then the caller's audio as binary messages of 16-bit little-endian mono PCM at 16000 Hz (20 ms each); the agent's audio comes back the same way, with JSON messages (started, mark, clear, transcript, end; the client echoes each mark once the audio before it has played). The token is good once, for 60 s; a call not joined by then ends UNANSWERED, unbilled. Funds and the concurrent-call limit are checked as for a phone call (402, 429). The call is billed at the rate card's webPerMinute for the time its stream was open, and logged with direction WEB. The protocol in full: docs/web-calls.md.
         */
        post: operations["webCalls.startWebCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List knowledge bases */
        get: operations["knowledgeBases.listKnowledgeBases"];
        put?: never;
        /**
         * Create a knowledge base
         * @description Creates the knowledge base and its vector collection (cosine space). retrievalScoreThreshold defaults to KB_SCORE_THRESHOLD; embedder to the platform's (EMBEDDER). When the vector store refuses, nothing is stored.
         */
        post: operations["knowledgeBases.createKnowledgeBase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a knowledge base */
        get: operations["knowledgeBases.getKnowledgeBase"];
        put?: never;
        post?: never;
        /**
         * Delete a knowledge base
         * @description Drops the collection, then the record, its documents and jobs; agents stop answering from it
         */
        delete: operations["knowledgeBases.deleteKnowledgeBase"];
        options?: never;
        head?: never;
        /**
         * Update a knowledge base
         * @description Changes the fields supplied. A new embedder is recorded as pendingEmbedder: the next ingestion job embeds every document with it into a new collection and switches over when done; queries keep using the old vectors until then, so vectors of two embedders are never mixed.
         */
        patch: operations["knowledgeBases.updateKnowledgeBase"];
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}/sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a text or URL source
         * @description Adds a document from text (title + text), a URL (http/https, fetched by each ingestion job; private and loopback addresses refused unless KB_URL_ALLOWLIST permits them) or FAQ pairs (one chunk per pair). Discriminated by `type`: TEXT, URL or FAQ. Queue an ingestion job to make it retrievable.
         */
        post: operations["knowledgeBases.addSource"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}/documents/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload documents
         * @description Adds one document per multipart part named `file` (1 to 10 files, 10 MiB each, 413 above): .txt, .md, .csv, .html, .pdf, text in UTF-8; PDF text is extracted (no OCR). At most 1000000 characters of text per file. All files or none are stored.
         */
        post: operations["knowledgeBases.uploadDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List documents
         * @description The knowledge base's documents, newest first (removed ones until an ingestion job purges them)
         */
        get: operations["knowledgeBases.listDocuments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}/documents/{documentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a document */
        get: operations["knowledgeBases.getDocument"];
        put?: never;
        post?: never;
        /**
         * Remove a document
         * @description Marks the document REMOVED: queries leave its chunks out at once, the next ingestion job deletes them from the collection
         */
        delete: operations["knowledgeBases.deleteDocument"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}/ingestion-jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List ingestion jobs */
        get: operations["knowledgeBases.listIngestionJobs"];
        put?: never;
        /**
         * Start an ingestion job
         * @description Queues ingestion of everything added, changed or removed since the last job (full=true: every document). While a job is queued and not yet started, asking again answers that job.
         */
        post: operations["knowledgeBases.createIngestionJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}/ingestion-jobs/{jobId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an ingestion job
         * @description Status, progress (chunks done of total) and per-document errors
         */
        get: operations["knowledgeBases.getIngestionJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/knowledge-bases/{kbId}/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Query a knowledge base
         * @description The topK (default 5, at most 50) chunks nearest the query whose cosine similarity (1 − distance) is at least the knowledge base's retrievalScoreThreshold, best first
         */
        post: operations["knowledgeBases.queryKnowledgeBase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/telephony/twilio/status/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Twilio call status callback
         * @description Twilio's call status callbacks (no API key): verified with X-Twilio-Signature against PUBLIC_URL, then delivered to the call
         */
        post: operations["telephonyCallbacks.twilioStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/telephony/twilio/amd/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Twilio asynchronous answering-machine detection result
         * @description Twilio's AsyncAmdStatusCallback (no API key): verified with X-Twilio-Signature against PUBLIC_URL (403 INVALID_SIGNATURE otherwise, nothing done); AnsweredBy (human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax, unknown) is delivered to the call once; a signed request without a CallSid or with another AnsweredBy is 400 INVALID_CARRIER_PAYLOAD. See docs/voicemail.md
         */
        post: operations["telephonyCallbacks.twilioAmd"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/telephony/twilio/stream-ended/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Tell Twilio how a call goes on when its media stream ended
         * @description The <Redirect> after a call's <Connect><Stream> (no API key; X-Twilio-Signature): Twilio asks it when the call's media stream ended while the call goes on (the runner that held it went away, or refused it). Answers TwiML that streams the call to the runner that owns it now, with a fresh token, or <Hangup/> when the call is over or its stream ended too often
         */
        post: operations["telephonyCallbacks.twilioStreamEnded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/telephony/telnyx/webhook/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Telnyx Call Control webhook
         * @description The webhooks of a call placed on Telnyx (no API key): telnyx-signature-ed25519 must be Telnyx's Ed25519 signature of `{telnyx-timestamp}|{raw body}` under TELNYX_PUBLIC_KEY, the timestamp within five minutes (403 INVALID_SIGNATURE otherwise, nothing done). call.answered and call.hangup (by its hangup_cause, at Telnyx's times) are delivered to the call, once per event id; every other event is acknowledged and ignored. A signed body that is not a Call Control webhook is 400 INVALID_CARRIER_PAYLOAD.
         */
        post: operations["telephonyCallbacks.telnyxWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/telephony/twilio/voice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer an incoming Twilio call
         * @description A Twilio number's voice webhook (no API key; X-Twilio-Signature against PUBLIC_URL): the number called (To) is looked up among the voice numbers assigned to an active agent. Answers TwiML: <Connect><Stream> to the agent; <Say> a short message and <Hangup/> when the tenant's wallet is empty or its calls are at their limit (an ended FAILED call is recorded); <Reject/> for a number no agent answers (nothing written). The same CallSid again reaches the same call. A request without CallSid, From or To is 400 INVALID_CARRIER_PAYLOAD
         */
        post: operations["telephonyCallbacks.twilioIncomingCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/telephony/twilio/voice/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Twilio status callback of an incoming call
         * @description A Twilio number's call status callback (no API key; X-Twilio-Signature): delivered to the incoming call its CallSid names; a CallSid the platform did not take is acknowledged and ignored
         */
        post: operations["telephonyCallbacks.twilioIncomingCallStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/telephony/telnyx/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Telnyx Call Control application's webhook (incoming calls)
         * @description The Call Control application's webhook URL (no API key; signed as the per-call webhooks are). A call.initiated with direction incoming to a voice number assigned to an active agent is answered (the answer command streams it to the agent and sends its further webhooks to the call's own URL) or, with an empty wallet or the tenant's calls at their limit, rejected and recorded as an ended FAILED call; the same call_control_id again reaches the same call. Events of a call taken here go to it; everything else is acknowledged and ignored
         */
        post: operations["telephonyCallbacks.telnyxIncomingCall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact-lists": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List contact lists */
        get: operations["contactLists.listContactLists"];
        put?: never;
        /**
         * Create a contact list
         * @description Creates an empty list. metadata.defaultCountry (ISO 3166-1 alpha-2) lets contacts be given without a country code.
         */
        post: operations["contactLists.createContactList"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact-lists/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a contact list */
        get: operations["contactLists.getContactList"];
        put?: never;
        post?: never;
        /**
         * Delete a contact list
         * @description Deletes the list and its contacts; refused while a scheduled, running or paused campaign uses it
         */
        delete: operations["contactLists.deleteContactList"];
        options?: never;
        head?: never;
        /** Update a contact list */
        patch: operations["contactLists.updateContactList"];
        trace?: never;
    };
    "/api/v1/contact-lists/{id}/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import contacts from a CSV file
         * @description Imports contacts from one multipart part named `file` (a .csv of at most 500 rows and 2 MiB) in one transaction. Headers match case-insensitively, spaces and underscores alike: phone (phone_number, phone, mobile, customer_number; required), name (name, customer_name, contact_name, first_name), email, metadata (a JSON object). Other columns are kept in the contact's metadata. Bad rows are skipped and reported in invalidRows by spreadsheet row number (header = row 1); phones already in the list or repeated in the file are skipped as duplicate.
         */
        post: operations["contactLists.uploadContacts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact-lists/{listId}/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a list's contacts
         * @description page (default 1) and limit (default 25, at most 200); without either, the whole list. Oldest first.
         */
        get: operations["contactLists.listContacts"];
        put?: never;
        /** Add a contact */
        post: operations["contactLists.createContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact-lists/{listId}/contacts/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add contacts in bulk
         * @description Adds up to 500 contacts in one transaction with the upload's rules; invalidRows.row is the position in contacts, from 1.
         */
        post: operations["contactLists.createContactsBulk"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/contact-lists/{listId}/contacts/{contactId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a contact */
        get: operations["contactLists.getContact"];
        put?: never;
        post?: never;
        /** Delete a contact */
        delete: operations["contactLists.deleteContact"];
        options?: never;
        head?: never;
        /** Update a contact */
        patch: operations["contactLists.updateContact"];
        trace?: never;
    };
    "/api/v1/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List voice campaigns
         * @description The tenant's voice campaigns, newest first; filter by status
         */
        get: operations["campaigns.listCampaigns"];
        put?: never;
        /**
         * Create a voice campaign
         * @description Creates a DRAFT voice campaign. Bounds: name 1-120 characters; dialTimeout 10-120 s (default 30); maxAttempts 1-10 (default 1); redialDelayMin 1-10080 (default 60); maxConcurrentCalls 1-100 (default 5); timezone IANA (default UTC); call window HH:MM-HH:MM within one day (default 09:00-18:00); callDays ISO weekdays 1-7 (default 1-5); recipientCallingHours {enabled, start?, end?}, off by default, HH:MM-HH:MM within one day in the contact's own time zone (default 08:00-21:00).
         */
        post: operations["campaigns.createCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a voice campaign */
        get: operations["campaigns.getCampaign"];
        put?: never;
        post?: never;
        /**
         * Delete a voice campaign
         * @description Deletes the campaign and its attempts; refused (409 CAMPAIGN_ACTIVE) while SCHEDULED, RUNNING or PAUSED
         */
        delete: operations["campaigns.deleteCampaign"];
        options?: never;
        head?: never;
        /**
         * Update a voice campaign
         * @description Changes the fields supplied; only in DRAFT (409 CAMPAIGN_STATE_CONFLICT otherwise). A window left unordered once merged with the stored one (callWindowEnd, recipientCallingHours.end not after its start) is 400 VALIDATION_FAILED.
         */
        patch: operations["campaigns.updateCampaign"];
        trace?: never;
    };
    "/api/v1/campaigns/{id}/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Schedule a voice campaign
         * @description Body optional: {scheduledAt?: ISO 8601 | null}. Dialing starts at scheduledAt, or at once when it is null, omitted or past. Allowed from DRAFT, and from SCHEDULED to move the time. The contact list is snapshotted when dialing starts.
         */
        post: operations["campaigns.scheduleCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a voice campaign
         * @description RUNNING → PAUSED; calls in progress finish
         */
        post: operations["campaigns.pauseCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a voice campaign
         * @description PAUSED → RUNNING (also after an automatic pause for insufficient funds)
         */
        post: operations["campaigns.resumeCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/abort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Abort a voice campaign
         * @description SCHEDULED | RUNNING | PAUSED → FAILED with statusReason ABORTED. Contacts not yet dialed are cancelled; calls in progress finish. The campaign can then be deleted.
         */
        post: operations["campaigns.abortCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a campaign's call attempts
         * @description Every attempt in claim order: contact, attempt number, status, outcome, session and times
         */
        get: operations["campaigns.listCampaignAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/campaigns/{id}/progress": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a campaign's progress */
        get: operations["campaigns.getCampaignProgress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dnc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the do-not-call list */
        get: operations["dnc.listDnc"];
        put?: never;
        /**
         * Add a number to the do-not-call list
         * @description Adds an E.164 number to the tenant's do-not-call list (again: no change). Campaigns skip it.
         */
        post: operations["dnc.addDnc"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dnc/{phoneNumber}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a number from the do-not-call list */
        delete: operations["dnc.removeDnc"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List chat-app campaigns */
        get: operations["chatApp.listChatAppCampaigns"];
        put?: never;
        /**
         * Create a chat-app campaign
         * @description One per agent (409 CHATAPP_CAMPAIGN_EXISTS). templates: 1-20 mappings, each (process, callStatus, languageCode) at most once (languageCode defaults to en_US), so an outcome may have a template per language. After each call of the agent, a mapping whose process is the call's direction and callStatus its outcome is sent as a template message. Of the mappings for a call's (process, callStatus), the one sent is the one in the contact's language (the contact's metadata.languageCode; case and - or _ do not matter, so es-MX is es_MX), else in the agent's (the agent's settings.languageCode), else the first with the contact's, then the agent's, primary language (contact es_MX → es_ES), else the en_US one, else the first configured. Values that are not language tags are ignored. Sender: the number attached to the agent, else phoneNumberId, else the agent's settings.phoneNumberId. Placeholders: {{name}} (the contact's name, else "Customer"), {{email}} and {{phone}} (the number messaged), {{metadata.<key>}} (the contact's metadata; empty when absent). Unknown placeholders are refused.
         */
        post: operations["chatApp.createChatAppCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a chat-app campaign */
        get: operations["chatApp.getChatAppCampaign"];
        /**
         * Update a chat-app campaign
         * @description Changes the fields supplied; templates, when given, replace the whole set (new ids), under the same rules as on creation: each (process, callStatus, languageCode) at most once
         */
        put: operations["chatApp.updateChatAppCampaign"];
        post?: never;
        /**
         * Delete a chat-app campaign
         * @description Deletes the campaign; messages already queued are still sent, and the log keeps them
         */
        delete: operations["chatApp.deleteChatAppCampaign"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/agents/{agentId}/attach-number": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Attach a chat-app sender number to an agent
         * @description Sets the agent's dedicated chat-app sender, which overrides its campaign's phoneNumberId
         */
        post: operations["chatApp.attachChatAppNumber"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/webhook-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue the chat-app webhook verify token
         * @description The tenant's verify token for the webhook subscription; the same token on every call
         */
        post: operations["chatApp.createChatAppWebhookToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/webhook-details": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the chat-app webhook details
         * @description webhookUrl and verifyToken to configure at the messaging platform (after POST /chatapp/webhook-token)
         */
        get: operations["chatApp.getChatAppWebhookDetails"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List chat-app messages sent
         * @description Chat-app messages sent after calls, newest first: status, provider id, attempts, errors
         */
        get: operations["chatApp.listChatAppMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/replies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List chat-app replies received
         * @description Messages contacts sent back, as received by the webhook, newest first
         */
        get: operations["chatApp.listChatAppReplies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chatapp/webhook/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify the chat-app webhook subscription
         * @description Subscription verification by the messaging platform (no API key): answers hub.challenge as plain text when hub.mode is subscribe and hub.verify_token is the tenant's token; 403 otherwise.
         */
        get: operations["chatAppWebhook.verifyChatAppWebhook"];
        put?: never;
        /**
         * Receive chat-app webhook notifications
         * @description Notifications from the messaging platform (no API key): the body must carry X-Hub-Signature-256 = sha256=<hex HMAC-SHA256 of the raw body with the app secret> (401 otherwise, nothing stored). Records message statuses (sent, delivered, read, failed) and inbound replies; a repeated notification records nothing new.
         */
        post: operations["chatAppWebhook.receiveChatAppWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sms-agent/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List SMS campaigns */
        get: operations["sms.listSmsCampaigns"];
        put?: never;
        /**
         * Create an SMS campaign
         * @description One per agent (409 SMS_CAMPAIGN_EXISTS). templates: callStatus ANSWERED (sent after answered calls) or UNANSWERED (every other outcome), each at most once; messageBody 1-1600 characters. Sender: senderNumber, else the agent's settings.phone_number; provider: senderProvider, else the platform default. Charged per segment (GSM-7: 160, or 153 each when split; UCS-2: 70, or 67). Placeholders: {{name}} (the contact's name, else "Customer"), {{email}} and {{phone}} (the number messaged), {{metadata.<key>}} (the contact's metadata; empty when absent). Unknown placeholders are refused.
         */
        post: operations["sms.createSmsCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sms-agent/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an SMS campaign */
        get: operations["sms.getSmsCampaign"];
        /**
         * Update an SMS campaign
         * @description Changes the fields supplied; templates, when given, replace the existing ones (new ids)
         */
        put: operations["sms.updateSmsCampaign"];
        post?: never;
        /** Delete an SMS campaign */
        delete: operations["sms.deleteSmsCampaign"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sms-agent/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List SMS messages sent
         * @description SMS sent after calls, newest first: status, provider id, segments, cost, attempts, errors
         */
        get: operations["sms.listSmsMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ScheduleCampaignRequest: {
            /** @description When dialing starts; omitted, null or in the past: at once */
            scheduledAt?: components["schemas"]["Timestamp"] | null;
        };
        /**
         * @description ISO 8601 timestamp, UTC with milliseconds on output
         * @example 2026-01-31T09:00:00.000Z
         */
        Timestamp: string;
        Alive: {
            /** @enum {string} */
            status: "ok";
            service: string;
            /**
             * int
             * @description The answering process's id
             */
            pid: number;
        };
        /** @description The request did not match the expected schema; `details` lists each offending field path */
        VALIDATION_FAILED: {
            error: {
                /** @enum {string} */
                code: "VALIDATION_FAILED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description INTERNAL_ERROR */
        INTERNAL_ERROR: {
            error: {
                /** @enum {string} */
                code: "INTERNAL_ERROR";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
        UNSUPPORTED_MEDIA_TYPE: {
            error: {
                /** @enum {string} */
                code: "UNSUPPORTED_MEDIA_TYPE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
        REQUEST_TIMEOUT: {
            error: {
                /** @enum {string} */
                code: "REQUEST_TIMEOUT";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
        RATE_LIMITED: {
            error: {
                /** @enum {string} */
                code: "RATE_LIMITED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
        PAYLOAD_TOO_LARGE: {
            error: {
                /** @enum {string} */
                code: "PAYLOAD_TOO_LARGE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        Ready: {
            /** @enum {string} */
            status: "ready";
            service: string;
            /**
             * int
             * @description The answering process's id
             */
            pid: number;
            checks: {
                /** @enum {string} */
                database: "ok" | "unreachable";
                /** @enum {string} */
                migrations: "ok" | "pending";
            };
        };
        /** @description The database is unreachable or migrations are pending; `details` holds the checks */
        NOT_READY: {
            error: {
                /** @enum {string} */
                code: "NOT_READY";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        SignupRequest: {
            email: components["schemas"]["Email"];
            password: string;
            companyName?: components["schemas"]["Trim"];
        };
        /** @description a string that will be trimmed */
        Email: string;
        /** @description a string that will be trimmed */
        Trim: string;
        SignupResponse: {
            /** @description Dashboard session token (JWT, HS256) */
            token: string;
            expiresAt: components["schemas"]["Timestamp"];
            user: components["schemas"]["User"];
            tenant: components["schemas"]["Tenant"] | null;
        };
        User: {
            /**
             * Format: uuid
             * @description UserId (UUID)
             */
            id: string;
            email: string;
            tenantId: string | null;
            createdAt: components["schemas"]["Timestamp"];
        };
        Tenant: {
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            id: string;
            name: string;
            /** @description ISO 4217 currency of the tenant wallet */
            currency: string;
            createdAt: components["schemas"]["Timestamp"];
        };
        /** @description EMAIL_TAKEN */
        EMAIL_TAKEN: {
            error: {
                /** @enum {string} */
                code: "EMAIL_TAKEN";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        LoginRequest: {
            email: components["schemas"]["Email"];
            password: string;
        };
        LoginResponse: {
            token: string;
            expiresAt: components["schemas"]["Timestamp"];
            user: components["schemas"]["User"];
        };
        /** @description INVALID_CREDENTIALS */
        INVALID_CREDENTIALS: {
            error: {
                /** @enum {string} */
                code: "INVALID_CREDENTIALS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        Profile: {
            user: components["schemas"]["User"];
            tenant: components["schemas"]["Tenant"] | null;
            credential: {
                /** @enum {string} */
                type: "api_key" | "session";
                apiKeyId: string | null;
            };
        };
        /** @description MISSING_CREDENTIALS */
        MISSING_CREDENTIALS: {
            error: {
                /** @enum {string} */
                code: "MISSING_CREDENTIALS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description MALFORMED_AUTHORIZATION */
        MALFORMED_AUTHORIZATION: {
            error: {
                /** @enum {string} */
                code: "MALFORMED_AUTHORIZATION";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description The key does not exist, was revoked, or was sent with the word Bearer inside the pasted value */
        INVALID_API_KEY: {
            error: {
                /** @enum {string} */
                code: "INVALID_API_KEY";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description API_KEY_EXPIRED */
        API_KEY_EXPIRED: {
            error: {
                /** @enum {string} */
                code: "API_KEY_EXPIRED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description INVALID_SESSION */
        INVALID_SESSION: {
            error: {
                /** @enum {string} */
                code: "INVALID_SESSION";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description SESSION_EXPIRED */
        SESSION_EXPIRED: {
            error: {
                /** @enum {string} */
                code: "SESSION_EXPIRED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description The credential's user belongs to no tenant */
        TENANT_CONTEXT_REQUIRED: {
            error: {
                /** @enum {string} */
                code: "TENANT_CONTEXT_REQUIRED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description The route accepts only dashboard (JWT) sessions */
        API_KEY_NOT_ALLOWED: {
            error: {
                /** @enum {string} */
                code: "API_KEY_NOT_ALLOWED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        CreateTenantRequest: {
            companyName: components["schemas"]["Trim"];
        };
        /** @description TENANT_EXISTS */
        TENANT_EXISTS: {
            error: {
                /** @enum {string} */
                code: "TENANT_EXISTS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description A tenantId in the request differs from the tenant the credential belongs to */
        TENANT_MISMATCH: {
            error: {
                /** @enum {string} */
                code: "TENANT_MISMATCH";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        UpdateTenantRequest: {
            name: components["schemas"]["Trim"];
        };
        CreateApiKeyRequest: {
            name: components["schemas"]["Trim"];
            /** @description The key stops working at this instant; must be in the future */
            expiresAt?: components["schemas"]["Timestamp"] | null;
            /** @description Where call results are posted */
            webhookUrl?: components["schemas"]["Trim"] | null;
            /** @description Pins the key's webhook to one agent */
            agentId?: string | null;
        };
        CreatedApiKey: {
            /**
             * Format: uuid
             * @description ApiKeyId (UUID)
             */
            id: string;
            name: string;
            /** @description The first characters of the key, for display */
            prefix: string;
            expiresAt: components["schemas"]["Timestamp"] | null;
            webhookUrl: string | null;
            agentId: string | null;
            createdAt: components["schemas"]["Timestamp"];
            /** @description The full key, shown only in this response: `aok_` + 30 random base62 characters + a 6-character checksum */
            key: string;
            /** @description Secret (shown only in this response) that signs the call-result webhooks sent to webhookUrl */
            signingSecret: string;
        };
        /** @description EXPIRY_IN_PAST */
        EXPIRY_IN_PAST: {
            error: {
                /** @enum {string} */
                code: "EXPIRY_IN_PAST";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description AGENT_NOT_FOUND */
        AGENT_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "AGENT_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        ApiKeyPage: {
            items: components["schemas"]["ApiKey"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        ApiKey: {
            /**
             * Format: uuid
             * @description ApiKeyId (UUID)
             */
            id: string;
            name: string;
            /** @description The first characters of the key, for display */
            prefix: string;
            expiresAt: components["schemas"]["Timestamp"] | null;
            webhookUrl: string | null;
            agentId: string | null;
            createdAt: components["schemas"]["Timestamp"];
            /** @description Updated at most once a minute */
            lastUsedAt: components["schemas"]["Timestamp"] | null;
        };
        /**
         * int
         * @description an integer
         */
        Int: number;
        /** @description API_KEY_NOT_FOUND */
        API_KEY_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "API_KEY_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        Wallet: {
            currency: string;
            /**
             * int
             * @description Sum of the wallet's ledger entries
             */
            balance: number;
            /**
             * int
             * @description Held for calls in progress
             */
            reserved: number;
            /**
             * int
             * @description balance − reserved; never negative
             */
            available: number;
        };
        TransactionPage: {
            items: components["schemas"]["Transaction"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        Transaction: {
            id: components["schemas"]["UUID"];
            /** @enum {string} */
            kind: "top_up" | "call_charge" | "sms_charge" | "chatapp_charge";
            /**
             * int
             * @description Effect on the wallet balance: positive for top-ups, negative for charges
             */
            amount: number;
            /**
             * int
             * @description Integer minor units of the currency (e.g. cents)
             */
            balanceAfter: number;
            idempotencyKey: string;
            /** @description What the money was for, e.g. a call session id */
            reference: string | null;
            createdAt: components["schemas"]["Timestamp"];
        };
        /**
         * Format: uuid
         * @description a Universally Unique Identifier
         */
        UUID: string;
        Usage: {
            from: components["schemas"]["Timestamp"] | null;
            to: components["schemas"]["Timestamp"] | null;
            currency: string;
            calls: components["schemas"]["Int"];
            /** @description Billed voice minutes */
            minutes: number;
            billedSeconds: components["schemas"]["Int"];
            messages: {
                sms: components["schemas"]["Int"];
                chatApp: components["schemas"]["Int"];
            };
            spend: {
                /**
                 * int
                 * @description Integer minor units of the currency (e.g. cents)
                 */
                voice: number;
                /**
                 * int
                 * @description Integer minor units of the currency (e.g. cents)
                 */
                sms: number;
                /**
                 * int
                 * @description Integer minor units of the currency (e.g. cents)
                 */
                chatApp: number;
                /**
                 * int
                 * @description Integer minor units of the currency (e.g. cents)
                 */
                total: number;
            };
        };
        CallAnalytics: {
            from: components["schemas"]["Timestamp"] | null;
            to: components["schemas"]["Timestamp"] | null;
            /**
             * int
             * @description Ended calls in the range
             */
            total: number;
            byOutcome: {
                ANSWERED: components["schemas"]["Int"];
                UNANSWERED: components["schemas"]["Int"];
                BUSY: components["schemas"]["Int"];
                FAILED: components["schemas"]["Int"];
                CANCELED: components["schemas"]["Int"];
            };
            /** @description ANSWERED / total, 0 when there are no calls */
            answerRate: number;
            /** @description Mean talk time of answered calls */
            averageDurationSeconds: number;
        };
        RateCard: {
            currency: string;
            /**
             * int
             * @description Integer minor units of the currency (e.g. cents)
             */
            voicePerMinute: number;
            /**
             * int
             * @description A minute of a web call (a browser or an SDK on a WebSocket); unless set, the voice price
             */
            webPerMinute: number;
            billingIncrementSeconds: components["schemas"]["Int"];
            /**
             * int
             * @description Integer minor units of the currency (e.g. cents)
             */
            smsPerSegment: number;
            /**
             * int
             * @description Integer minor units of the currency (e.g. cents)
             */
            chatAppPerMessage: number;
            /**
             * int
             * @description Available balance a call needs before it is placed: one reservation chunk
             */
            minimumReservation: number;
            /**
             * int
             * @description Talk time each reservation covers; extended as the call lasts
             */
            reservationChunkSeconds: number;
            /**
             * @description Platform defaults, or a rate card set for this tenant
             * @enum {string}
             */
            source: "platform" | "tenant";
        };
        TopUpRequest: {
            amount: components["schemas"]["Int"];
            idempotencyKey: string;
        };
        TopUpResult: {
            transaction: components["schemas"]["Transaction"];
            wallet: components["schemas"]["Wallet"];
        };
        /** @description IDEMPOTENCY_KEY_REUSED */
        IDEMPOTENCY_KEY_REUSED: {
            error: {
                /** @enum {string} */
                code: "IDEMPOTENCY_KEY_REUSED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        PersonaPage: {
            items: components["schemas"]["Persona"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        Persona: {
            /**
             * Format: uuid
             * @description PersonaId (UUID)
             */
            id: string;
            name: string;
            description: string;
            /** @description System prompt a new agent starts with */
            defaultPrompt: string;
            /** @description First line a new agent starts with */
            defaultGreeting: string;
        };
        CreateAgentRequest: {
            name: components["schemas"]["Trim"];
            /**
             * Format: uuid
             * @description PersonaId (UUID)
             */
            agent_persona_id: string;
        };
        Agent: {
            /**
             * Format: uuid
             * @description The agent's channel id: used for calls, campaigns and patching
             */
            id: string;
            /**
             * Format: uuid
             * @description The agent's underlying brain id (also brain.id)
             */
            agent_id: string;
            brain: {
                id: components["schemas"]["UUID"];
            };
            name: string;
            is_active: boolean;
            agent_persona_id: string | null;
            greetMessage: string;
            agent_prompt: string;
            metadata: Record<string, unknown>;
            channel: ("VOICE" | "CHATAPP") | null;
            settings: components["schemas"]["AgentSettings"];
            connectionId: string | null;
            /** @description Knowledge bases the agent answers from */
            knowledgeBaseIds: components["schemas"]["UUID"][];
            /** @description Whether POST /agents/{id}/webhook-token has been called (required before enabling the chat-app channel) */
            webhookTokenIssued: boolean;
            voice: components["schemas"]["AgentVoice"];
            /** @description Extension: every voice choice in force for the agent's calls, its own or the platform's default, and notices of what the platform cannot do for it as configured (such as hear callers, with no speech-to-text provider) */
            effectiveVoice: {
                language: string;
                speechToText: {
                    /** @enum {string} */
                    provider: "deepgram" | "openai" | "none";
                    model: string | null;
                };
                languageModel: {
                    /** @enum {string} */
                    provider: "openai" | "offline";
                    model: string | null;
                    temperature: number | null;
                };
                textToSpeech: {
                    /** @enum {string} */
                    provider: "elevenlabs" | "openai" | "flite";
                    voice: string | null;
                    model: string | null;
                };
                endpointing: {
                    minDelayMs: components["schemas"]["Int"];
                    maxDelayMs: components["schemas"]["Int"];
                };
                interruption: {
                    enabled: boolean;
                    minSpeechMs: components["schemas"]["Int"];
                    minWords: components["schemas"]["Int"];
                    backchannels: string[];
                };
                idle: {
                    reminderAfterSeconds: components["schemas"]["Int"];
                    reminders: components["schemas"]["Int"];
                    reminderText: string;
                    goodbyeText: string;
                };
                maxCallSeconds: components["schemas"]["Int"];
                tools: {
                    endCall: boolean;
                    knowledgeLookup: boolean;
                };
                voicemail: {
                    /** @enum {string} */
                    detection: "off" | "carrier" | "audio";
                    /** @enum {string} */
                    policy: "hangup" | "leave_message";
                    message: string;
                };
                keypad: {
                    terminator: string | null;
                    interDigitTimeoutMs: components["schemas"]["Int"];
                    maxDigits: components["schemas"]["Int"];
                    agentMayPress: boolean;
                };
                transfer: {
                    numbers: string[];
                    warmMessage: string;
                };
                /** @description What the platform cannot do for this agent as configured (e.g. no speech-to-text: it can speak but not hear) */
                notices: string[];
            };
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        AgentSettings: {
            /** @enum {string} */
            phone_provider?: "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C";
            phone_number?: components["schemas"]["E164"];
            phoneNumberId?: components["schemas"]["Trim"];
            /** @description Extension: the agent's language (a tag such as en_US, hi_IN, es_ES). After a call, the agent's chat-app campaign sends its template in this language, unless it maps one in the contact's own language (the contact's metadata.languageCode) */
            languageCode?: string;
            /**
             * @description Extension: off (default: a call is recorded only when it asks, record: true), on (every call unless it asks not to), never (no call, whatever it asks). See docs/recordings.md
             * @enum {string}
             */
            recording?: "off" | "on" | "never";
        };
        E164: string;
        /** @description How the agent converses on the phone (our extension): speech recognition, language model, voice, turn-taking, idle handling, call length, tools and voicemail. Fields left out take the platform's defaults (see effectiveVoice). */
        AgentVoice: {
            language?: string;
            speechToText?: {
                /**
                 * @description deepgram (streaming), openai (an OpenAI-compatible transcription API, per utterance), or none; default: the platform's
                 * @enum {string}
                 */
                provider?: "deepgram" | "openai" | "none";
                model?: string;
            };
            languageModel?: {
                /**
                 * @description openai (any OpenAI-compatible chat completions API the platform is configured with) or offline (answers from the agent's knowledge bases); default: the platform's
                 * @enum {string}
                 */
                provider?: "openai" | "offline";
                model?: string;
                /**
                 * between(0, 2)
                 * @description 0 to 2
                 */
                temperature?: number;
            };
            textToSpeech?: {
                /**
                 * @description elevenlabs, openai, or flite (built in, offline); default: the platform's
                 * @enum {string}
                 */
                provider?: "elevenlabs" | "openai" | "flite";
                voice?: string;
                model?: string;
            };
            endpointing?: {
                minDelayMs?: components["schemas"]["Int"];
                maxDelayMs?: components["schemas"]["Int"];
            };
            interruption?: {
                /** @description Whether the caller may interrupt the agent (default true) */
                enabled?: boolean;
                minSpeechMs?: components["schemas"]["Int"];
                minWords?: components["schemas"]["Int"];
                backchannels?: string[];
            };
            idle?: {
                reminderAfterSeconds?: components["schemas"]["Int"];
                reminders?: components["schemas"]["Int"];
                reminderText?: string;
                goodbyeText?: string;
            };
            maxCallSeconds?: components["schemas"]["Int"];
            tools?: {
                /** @description The model may end the call (default true) */
                endCall?: boolean;
                /** @description The model may search the agent's knowledge bases (default true; only with knowledge bases) */
                knowledgeLookup?: boolean;
            };
            voicemail?: {
                /**
                 * @description off (default), carrier (the carrier's answering-machine detection; ours from the audio where it has none) or audio (always ours)
                 * @enum {string}
                 */
                detection?: "off" | "carrier" | "audio";
                /**
                 * @description On a machine: hangup (default), or leave_message (after the beep, not interruptible, then hang up)
                 * @enum {string}
                 */
                policy?: "hangup" | "leave_message";
                message?: string;
            };
            keypad?: {
                /**
                 * @description The key that ends the caller's keypad entry (default #); none: only the timeout or maxDigits end it
                 * @enum {string}
                 */
                terminator?: "#" | "*" | "none";
                interDigitTimeoutMs?: components["schemas"]["Int"];
                maxDigits?: components["schemas"]["Int"];
                /** @description The model may press keys on the call (send_dtmf, to navigate a phone menu; default true) */
                agentMayPress?: boolean;
            };
            transfer?: {
                numbers?: components["schemas"]["E164"][];
                warmMessage?: string;
            };
        };
        /** @description PERSONA_NOT_FOUND */
        PERSONA_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "PERSONA_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        AgentPage: {
            items: components["schemas"]["Agent"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        UpdateAgentRequest: {
            name?: components["schemas"]["Trim"];
            greetMessage?: components["schemas"]["Trim"];
            agent_prompt?: components["schemas"]["Trim"];
            /** @description Merged into the stored metadata (RFC 7396 merge patch); null values remove keys */
            metadata?: Record<string, unknown>;
            channel?: ("VOICE" | "CHATAPP") | null;
            settings?: components["schemas"]["AgentSettingsPatch"];
            voice?: components["schemas"]["AgentVoicePatch"];
            connectionId?: components["schemas"]["Trim"] | null;
            is_active?: boolean;
            /** @description Replaces the knowledge bases the agent answers from */
            knowledgeBaseIds?: string[];
        };
        /** @description Merged into the stored settings key by key (RFC 7396); null removes a key; unknown keys are refused */
        AgentSettingsPatch: {
            phone_provider?: ("PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C") | null;
            phone_number?: components["schemas"]["E164"] | null;
            phoneNumberId?: components["schemas"]["Trim"] | null;
            /** @description Extension: the agent's language (a tag such as en_US, hi_IN, es_ES). After a call, the agent's chat-app campaign sends its template in this language, unless it maps one in the contact's own language (the contact's metadata.languageCode); null removes it */
            languageCode?: string | null;
            recording?: ("off" | "on" | "never") | null;
        };
        /** @description Merged into the agent's voice choices key by key (RFC 7396); null removes a choice or a whole group; unknown keys are refused */
        AgentVoicePatch: {
            language?: string | null;
            speechToText?: {
                provider?: ("deepgram" | "openai" | "none") | null;
                model?: string | null;
            } | null;
            languageModel?: {
                provider?: ("openai" | "offline") | null;
                model?: string | null;
                temperature?: number | null;
            } | null;
            textToSpeech?: {
                provider?: ("elevenlabs" | "openai" | "flite") | null;
                voice?: string | null;
                model?: string | null;
            } | null;
            endpointing?: {
                minDelayMs?: components["schemas"]["Int"] | null;
                maxDelayMs?: components["schemas"]["Int"] | null;
            } | null;
            interruption?: {
                enabled?: boolean | null;
                minSpeechMs?: components["schemas"]["Int"] | null;
                minWords?: components["schemas"]["Int"] | null;
                backchannels?: string[] | null;
            } | null;
            idle?: {
                reminderAfterSeconds?: components["schemas"]["Int"] | null;
                reminders?: components["schemas"]["Int"] | null;
                reminderText?: string | null;
                goodbyeText?: string | null;
            } | null;
            maxCallSeconds?: components["schemas"]["Int"] | null;
            tools?: {
                endCall?: boolean | null;
                knowledgeLookup?: boolean | null;
            } | null;
            voicemail?: {
                detection?: ("off" | "carrier" | "audio") | null;
                policy?: ("hangup" | "leave_message") | null;
                message?: string | null;
            } | null;
            keypad?: {
                terminator?: ("#" | "*" | "none") | null;
                interDigitTimeoutMs?: components["schemas"]["Int"] | null;
                maxDigits?: components["schemas"]["Int"] | null;
                agentMayPress?: boolean | null;
            } | null;
            transfer?: {
                numbers?: components["schemas"]["E164"][] | null;
                warmMessage?: string | null;
            } | null;
        };
        /** @description Voice settings need both phone_provider and phone_number and the VOICE channel */
        INVALID_AGENT_SETTINGS: {
            error: {
                /** @enum {string} */
                code: "INVALID_AGENT_SETTINGS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description UNKNOWN_KNOWLEDGE_BASE */
        UNKNOWN_KNOWLEDGE_BASE: {
            error: {
                /** @enum {string} */
                code: "UNKNOWN_KNOWLEDGE_BASE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description WEBHOOK_TOKEN_REQUIRED */
        WEBHOOK_TOKEN_REQUIRED: {
            error: {
                /** @enum {string} */
                code: "WEBHOOK_TOKEN_REQUIRED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        AgentWebhookToken: {
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            token: string;
            /** @description The chat-app webhook address this token protects (subscription verification with hub.verify_token) */
            webhookUrl: string;
            createdAt: components["schemas"]["Timestamp"];
        };
        CreateVoiceNumberRequest: {
            phoneNumber: components["schemas"]["E164"];
            /** @enum {string} */
            provider: "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C";
            label?: components["schemas"]["Trim"];
        };
        VoiceNumber: {
            /**
             * Format: uuid
             * @description VoiceNumberId (UUID)
             */
            id: string;
            phoneNumber: string;
            /** @enum {string} */
            provider: "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C";
            label: string | null;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        /** @description VOICE_NUMBER_EXISTS */
        VOICE_NUMBER_EXISTS: {
            error: {
                /** @enum {string} */
                code: "VOICE_NUMBER_EXISTS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        VoiceNumberPage: {
            items: components["schemas"]["VoiceNumber"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description VOICE_NUMBER_NOT_FOUND */
        VOICE_NUMBER_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "VOICE_NUMBER_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description WEBHOOK_VERIFICATION_FAILED */
        WEBHOOK_VERIFICATION_FAILED: {
            error: {
                /** @enum {string} */
                code: "WEBHOOK_VERIFICATION_FAILED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        PlaceCallRequest: {
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            /**
             * Format: uuid
             * @description Id of a voice number registered to the tenant
             */
            voiceNumberId: string;
            toNumber: components["schemas"]["E164"];
            /**
             * Format: uuid
             * @description Omit: the tenant comes from the credential
             */
            tenantId?: string;
            /**
             * Format: uuid
             * @description A contact of the tenant the call is attributed to
             */
            customerId?: string;
            /**
             * maxLength(128)
             * @description a string at most 128 character(s) long
             */
            campaignId?: components["schemas"]["StorableString"];
            /**
             * maxLength(128)
             * @description a string at most 128 character(s) long
             */
            campaignAttemptId?: components["schemas"]["StorableString"];
            metadata?: Record<string, unknown>;
            /** @description Extension: record this call (true) or not (false); absent: as the agent's settings.recording says. An agent set to never record is never recorded */
            record?: boolean;
        };
        StorableString: string;
        PlaceCallResponse: {
            /**
             * Format: uuid
             * @description a Universally Unique Identifier
             */
            sessionId: string;
            jobId: string;
            /** @enum {string} */
            status: "QUEUED";
        };
        /** @description CONCURRENT_CALL_LIMIT */
        CONCURRENT_CALL_LIMIT: {
            error: {
                /** @enum {string} */
                code: "CONCURRENT_CALL_LIMIT";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description REQUEST_IN_PROGRESS */
        REQUEST_IN_PROGRESS: {
            error: {
                /** @enum {string} */
                code: "REQUEST_IN_PROGRESS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description AGENT_INACTIVE */
        AGENT_INACTIVE: {
            error: {
                /** @enum {string} */
                code: "AGENT_INACTIVE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description CONTACT_NOT_FOUND */
        CONTACT_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "CONTACT_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description INSUFFICIENT_FUNDS */
        INSUFFICIENT_FUNDS: {
            error: {
                /** @enum {string} */
                code: "INSUFFICIENT_FUNDS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        CallLogPage: {
            items: components["schemas"]["CallLog"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        CallLog: {
            /**
             * Format: uuid
             * @description a Universally Unique Identifier
             */
            sessionId: string;
            jobId: string;
            /** @enum {string} */
            status: "QUEUED" | "DIALING" | "RINGING" | "IN_PROGRESS" | "ENDED";
            outcome: ("ANSWERED" | "UNANSWERED" | "BUSY" | "FAILED" | "CANCELED") | null;
            endReason: string | null;
            /** @enum {string} */
            direction: "OUTGOING" | "INCOMING" | "WEB";
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            /** @description null on a web call */
            voiceNumberId: string | null;
            /** @enum {string} */
            provider: "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C" | "WEB";
            /** @description null on a web call */
            fromNumber: string | null;
            /** @description null on a web call */
            toNumber: string | null;
            customerId: string | null;
            campaignId: string | null;
            campaignAttemptId: string | null;
            metadata: Record<string, unknown>;
            createdAt: components["schemas"]["Timestamp"];
            dialedAt: components["schemas"]["Timestamp"] | null;
            answeredAt: components["schemas"]["Timestamp"] | null;
            endedAt: components["schemas"]["Timestamp"] | null;
            /**
             * int
             * @description Talk time, answer to end
             */
            durationSeconds: number;
            /**
             * int
             * @description Talk time rounded up to the billing increment
             */
            billedSeconds: number;
            /**
             * int
             * @description Integer minor units of the currency (e.g. cents)
             */
            cost: number;
            currency: string;
            /** @description Who answered, by voicemail detection (docs/voicemail.md); null when it did not run or had no verdict */
            answeredBy: ("human" | "machine" | "unknown") | null;
            /** @description On a machine: hung_up or message_left */
            voicemail: ("hung_up" | "message_left") | null;
            /** @description With include=transcript */
            transcript?: components["schemas"]["TranscriptLine"][];
        };
        TranscriptLine: {
            /** @enum {string} */
            speaker: "agent" | "customer";
            /** @description What was said; for an agent line cut off by the caller, only what the caller heard */
            text: string;
            at: components["schemas"]["Timestamp"];
            /** @description The caller spoke over this agent line and it stopped there */
            interrupted: boolean;
            /** @description On the agent's answer to a turn: what the answer took */
            latency: components["schemas"]["TurnLatency"] | null;
        };
        TurnLatency: {
            /**
             * int
             * @description From the caller going quiet to their turn taken as over
             */
            endpointingMs: number;
            /** @description From the caller going quiet to the last final transcript */
            sttFinalLagMs: components["schemas"]["Int"] | null;
            /** @description From asking the language model to its first words */
            llmFirstTokenMs: components["schemas"]["Int"] | null;
            /** @description From asking for speech to its first audio */
            ttsFirstByteMs: components["schemas"]["Int"] | null;
            /**
             * int
             * @description The platform's own part of voice-to-voice
             */
            overheadMs: number;
            /**
             * int
             * @description From the caller going quiet to the agent's first audio
             */
            voiceToVoiceMs: number;
        };
        CallSession: {
            /**
             * Format: uuid
             * @description a Universally Unique Identifier
             */
            sessionId: string;
            jobId: string;
            /** @enum {string} */
            status: "QUEUED" | "DIALING" | "RINGING" | "IN_PROGRESS" | "ENDED";
            outcome: ("ANSWERED" | "UNANSWERED" | "BUSY" | "FAILED" | "CANCELED") | null;
            endReason: string | null;
            /** @enum {string} */
            direction: "OUTGOING" | "INCOMING" | "WEB";
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            /** @description null on a web call */
            voiceNumberId: string | null;
            /** @enum {string} */
            provider: "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C" | "WEB";
            /** @description null on a web call */
            fromNumber: string | null;
            /** @description null on a web call */
            toNumber: string | null;
            customerId: string | null;
            campaignId: string | null;
            campaignAttemptId: string | null;
            metadata: Record<string, unknown>;
            createdAt: components["schemas"]["Timestamp"];
            dialedAt: components["schemas"]["Timestamp"] | null;
            answeredAt: components["schemas"]["Timestamp"] | null;
            endedAt: components["schemas"]["Timestamp"] | null;
            /**
             * int
             * @description Talk time, answer to end
             */
            durationSeconds: number;
            /**
             * int
             * @description Talk time rounded up to the billing increment
             */
            billedSeconds: number;
            /**
             * int
             * @description Integer minor units of the currency (e.g. cents)
             */
            cost: number;
            currency: string;
            /** @description Who answered, by voicemail detection (docs/voicemail.md); null when it did not run or had no verdict */
            answeredBy: ("human" | "machine" | "unknown") | null;
            /** @description On a machine: hung_up or message_left */
            voicemail: ("hung_up" | "message_left") | null;
            transcript: components["schemas"]["TranscriptLine"][];
            events: {
                /** @description queued, dialing, ringing, answered, ended, hangup_requested, reservation_extended, … */
                type: string;
                at: components["schemas"]["Timestamp"];
                /** unknown */
                detail: unknown;
            }[];
            /** @description Extension: the call's recording (GET /calls/{sessionId}/recording), null when there is none */
            recording?: components["schemas"]["RecordingSummary"] | null;
        };
        RecordingSummary: {
            /**
             * int
             * @description Length of the recording
             */
            durationMs: number;
            /**
             * int
             * @description Size of the WAV file
             */
            bytes: number;
            /**
             * int
             * @description 8000 for phone calls, 16000 for web calls
             */
            sampleRate: number;
            /**
             * @description Left: the caller; right: the agent as the caller heard it
             * @enum {number}
             */
            channels: 2;
            createdAt: components["schemas"]["Timestamp"];
        };
        /** @description CALL_NOT_FOUND */
        CALL_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "CALL_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        HangupResult: {
            /**
             * Format: uuid
             * @description a Universally Unique Identifier
             */
            sessionId: string;
            /** @enum {string} */
            status: "QUEUED" | "DIALING" | "RINGING" | "IN_PROGRESS" | "ENDED";
            outcome: ("ANSWERED" | "UNANSWERED" | "BUSY" | "FAILED" | "CANCELED") | null;
        };
        TransferCallRequest: {
            toNumber: string;
        };
        TransferCallResult: {
            sessionId: components["schemas"]["UUID"];
            /** @enum {string} */
            status: "QUEUED" | "DIALING" | "RINGING" | "IN_PROGRESS" | "ENDED";
            outcome: ("ANSWERED" | "UNANSWERED" | "BUSY" | "FAILED" | "CANCELED") | null;
            transfer: components["schemas"]["CallTransferRecord"];
        };
        CallTransferRecord: {
            toNumber: string;
            /** @enum {string} */
            mode: "cold" | "warm";
            /** @enum {string} */
            source: "agent" | "api";
            at: components["schemas"]["Timestamp"];
        };
        /** @description CALL_NOT_LIVE */
        CALL_NOT_LIVE: {
            error: {
                /** @enum {string} */
                code: "CALL_NOT_LIVE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description TRANSFER_FAILED */
        TRANSFER_FAILED: {
            error: {
                /** @enum {string} */
                code: "TRANSFER_FAILED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description RECORDING_NOT_FOUND */
        RECORDING_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "RECORDING_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        WebhookDeliveryPage: {
            items: components["schemas"]["WebhookDelivery"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        WebhookDelivery: {
            id: components["schemas"]["UUID"];
            /**
             * Format: uuid
             * @description Also sent as the Voiceagent-Event-Id header
             */
            eventId: string;
            eventType: string;
            url: string;
            attempts: components["schemas"]["Int"];
            /** @description HTTP status of the last attempt; null when it got none */
            lastStatus: components["schemas"]["Int"] | null;
            lastError: string | null;
            lastAttemptAt: components["schemas"]["Timestamp"] | null;
            /** @description Null once delivered or given up */
            nextAttemptAt: components["schemas"]["Timestamp"] | null;
            deliveredAt: components["schemas"]["Timestamp"] | null;
            /** @description Set when every attempt failed */
            failedAt: components["schemas"]["Timestamp"] | null;
            createdAt: components["schemas"]["Timestamp"];
        };
        StartWebCallRequest: {
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            /**
             * Format: uuid
             * @description Omit: the tenant comes from the credential
             */
            tenantId?: string;
            /** @description Kept on the call: its log, its detail and the call.ended webhook */
            metadata?: Record<string, unknown>;
            /** @description Record this call (true) or not (false); absent: as the agent's settings.recording says. An agent set to never record is never recorded */
            record?: boolean;
        };
        WebCallTicket: {
            /**
             * Format: uuid
             * @description a Universally Unique Identifier
             */
            sessionId: string;
            /** @description The call's stream: open a WebSocket here (ws:// or wss://, on the platform's public origin) */
            url: string;
            /** @description Send it in the first message, {"type":"start","token":…}: one use, until expiresAt */
            token: string;
            /**
             * @description After this the token is refused and the call ends UNANSWERED, unbilled
             * @example 2026-01-31T09:00:00.000Z
             */
            expiresAt: string;
        };
        /** @description WEB_CALLS_UNAVAILABLE */
        WEB_CALLS_UNAVAILABLE: {
            error: {
                /** @enum {string} */
                code: "WEB_CALLS_UNAVAILABLE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        CreateKnowledgeBaseRequest: {
            kbKey: string;
            kbName: components["schemas"]["Trim"];
            /**
             * maxLength(2000)
             * @description a string at most 2000 character(s) long
             */
            description?: string;
            retrievalScoreThreshold?: number;
            metadata?: Record<string, unknown>;
            embedder?: string;
        };
        KnowledgeBase: {
            /**
             * Format: uuid
             * @description KnowledgeBaseId (UUID)
             */
            id: string;
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            tenantId: string;
            kbKey: string;
            kbName: string;
            description: string;
            retrievalScoreThreshold: number;
            metadata: Record<string, unknown>;
            /**
             * @description EMPTY: no documents; NEEDS_INGESTION: documents added, changed or removed since the last ingestion; INGESTING: a job is queued or running; READY: the collection holds every document as it is
             * @enum {string}
             */
            status: "EMPTY" | "NEEDS_INGESTION" | "INGESTING" | "READY";
            documentCount: components["schemas"]["Int"];
            /**
             * int
             * @description Chunks in the collection from ingested documents
             */
            chunkCount: number;
            /** @description The embedder the collection's vectors were made with */
            embedder: string;
            /** @description An embedder asked for; it replaces embedder when an ingestion job has re-embedded everything */
            pendingEmbedder: string | null;
            lastIngestedAt: components["schemas"]["Timestamp"] | null;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        /** @description UNKNOWN_EMBEDDER */
        UNKNOWN_EMBEDDER: {
            error: {
                /** @enum {string} */
                code: "UNKNOWN_EMBEDDER";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description KB_KEY_TAKEN */
        KB_KEY_TAKEN: {
            error: {
                /** @enum {string} */
                code: "KB_KEY_TAKEN";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description VECTOR_STORE_UNAVAILABLE */
        VECTOR_STORE_UNAVAILABLE: {
            error: {
                /** @enum {string} */
                code: "VECTOR_STORE_UNAVAILABLE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        KnowledgeBasePage: {
            items: components["schemas"]["KnowledgeBase"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description KNOWLEDGE_BASE_NOT_FOUND */
        KNOWLEDGE_BASE_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "KNOWLEDGE_BASE_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        UpdateKnowledgeBaseRequest: {
            kbKey?: string;
            kbName?: components["schemas"]["Trim"];
            /**
             * maxLength(2000)
             * @description a string at most 2000 character(s) long
             */
            description?: string;
            retrievalScoreThreshold?: number;
            /** @description Merged into the stored metadata (RFC 7396: null removes a key) */
            metadata?: Record<string, unknown>;
            /** @description Another embedder takes effect once an ingestion job has re-embedded every document */
            embedder?: string;
        };
        TextSource: {
            /** @enum {string} */
            type: "TEXT";
            title: components["schemas"]["Trim"];
            text: string;
        };
        UrlSource: {
            /** @enum {string} */
            type: "URL";
            url: string;
            title?: components["schemas"]["Trim"];
        };
        /** @description Each pair becomes its own chunk */
        FaqSource: {
            /** @enum {string} */
            type: "FAQ";
            title?: components["schemas"]["Trim"];
            faqs: {
                question: components["schemas"]["Trim"];
                answer: components["schemas"]["Trim"];
            }[];
        };
        KbDocument: {
            /**
             * Format: uuid
             * @description KbDocumentId (UUID)
             */
            id: string;
            /**
             * Format: uuid
             * @description KnowledgeBaseId (UUID)
             */
            kbId: string;
            /** @enum {string} */
            sourceType: "TEXT" | "URL" | "FAQ" | "FILE";
            title: string | null;
            url: string | null;
            fileName: string | null;
            /** @description txt, md, csv, html or pdf (files and fetched pages) */
            format: string | null;
            /** @description Uploaded or fetched bytes */
            sizeBytes: components["schemas"]["Int"] | null;
            /** @description Length of the text that is chunked; null for a URL not fetched yet */
            characters: components["schemas"]["Int"] | null;
            /** @enum {string} */
            status: "PENDING" | "INGESTED" | "FAILED" | "REMOVED";
            chunkCount: components["schemas"]["Int"];
            /** @description SHA-256 of the text; unchanged text is not ingested again */
            contentHash: string | null;
            lastError: {
                code: string;
                message: string;
            } | null;
            ingestedAt: components["schemas"]["Timestamp"] | null;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        /** @description URL_NOT_ALLOWED */
        URL_NOT_ALLOWED: {
            error: {
                /** @enum {string} */
                code: "URL_NOT_ALLOWED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** Format: binary */
        PersistedFile: Blob;
        UploadResult: {
            documents: components["schemas"]["KbDocument"][];
        };
        /** @description NO_FILES */
        NO_FILES: {
            error: {
                /** @enum {string} */
                code: "NO_FILES";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description UNSUPPORTED_DOCUMENT_TYPE */
        UNSUPPORTED_DOCUMENT_TYPE: {
            error: {
                /** @enum {string} */
                code: "UNSUPPORTED_DOCUMENT_TYPE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description DOCUMENT_TOO_LONG */
        DOCUMENT_TOO_LONG: {
            error: {
                /** @enum {string} */
                code: "DOCUMENT_TOO_LONG";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description DOCUMENT_UNREADABLE */
        DOCUMENT_UNREADABLE: {
            error: {
                /** @enum {string} */
                code: "DOCUMENT_UNREADABLE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        KbDocumentPage: {
            items: components["schemas"]["KbDocument"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description DOCUMENT_NOT_FOUND */
        DOCUMENT_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "DOCUMENT_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        IngestionJobAccepted: {
            /**
             * Format: uuid
             * @description IngestionJobId (UUID)
             */
            jobId: string;
            /**
             * Format: uuid
             * @description KnowledgeBaseId (UUID)
             */
            kbId: string;
            /** @enum {string} */
            status: "QUEUED" | "RUNNING" | "SUCCEEDED" | "COMPLETED_WITH_ERRORS" | "FAILED";
        };
        IngestionJobPage: {
            items: components["schemas"]["IngestionJob"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        IngestionJob: {
            /**
             * Format: uuid
             * @description IngestionJobId (UUID)
             */
            jobId: string;
            /**
             * Format: uuid
             * @description KnowledgeBaseId (UUID)
             */
            kbId: string;
            /** @enum {string} */
            status: "QUEUED" | "RUNNING" | "SUCCEEDED" | "COMPLETED_WITH_ERRORS" | "FAILED";
            full: boolean;
            /** @description Fixed when the job starts */
            embedder: string | null;
            progress: {
                chunksDone: components["schemas"]["Int"];
                chunksTotal: components["schemas"]["Int"];
                documentsDone: components["schemas"]["Int"];
                documentsTotal: components["schemas"]["Int"];
            };
            documents: {
                /**
                 * int
                 * @description New or changed documents embedded
                 */
                ingested: number;
                /**
                 * int
                 * @description Skipped: same text, same embedder
                 */
                unchanged: number;
                /**
                 * int
                 * @description Removed documents whose chunks left the collection
                 */
                removed: number;
                failed: components["schemas"]["Int"];
            };
            errors: {
                documentId: string | null;
                code: string;
                message: string;
            }[];
            /**
             * int
             * @description Times a runner took the job up; above 1 it was resumed
             */
            runs: number;
            createdAt: components["schemas"]["Timestamp"];
            startedAt: components["schemas"]["Timestamp"] | null;
            finishedAt: components["schemas"]["Timestamp"] | null;
        };
        /** @description INGESTION_JOB_NOT_FOUND */
        INGESTION_JOB_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "INGESTION_JOB_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        QueryRequest: {
            query: components["schemas"]["Trim"];
            topK?: components["schemas"]["Int"];
        };
        QueryResult: {
            /**
             * Format: uuid
             * @description KnowledgeBaseId (UUID)
             */
            kbId: string;
            query: string;
            threshold: number;
            embedder: string;
            /** @description Best first; only scores at or above threshold */
            items: components["schemas"]["RetrievedChunk"][];
        };
        RetrievedChunk: {
            chunkId: string;
            /** @description Cosine similarity (1 − cosine distance) */
            score: number;
            text: string;
            /**
             * Format: uuid
             * @description KbDocumentId (UUID)
             */
            documentId: string;
            chunkIndex: components["schemas"]["Int"];
            source: {
                /** @enum {string} */
                type: "TEXT" | "URL" | "FAQ" | "FILE";
                title: string | null;
                url: string | null;
                fileName: string | null;
            };
        };
        /** @description EMBEDDER_UNAVAILABLE */
        EMBEDDER_UNAVAILABLE: {
            error: {
                /** @enum {string} */
                code: "EMBEDDER_UNAVAILABLE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description INVALID_SIGNATURE */
        INVALID_SIGNATURE: {
            error: {
                /** @enum {string} */
                code: "INVALID_SIGNATURE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description INVALID_CARRIER_PAYLOAD */
        INVALID_CARRIER_PAYLOAD: {
            error: {
                /** @enum {string} */
                code: "INVALID_CARRIER_PAYLOAD";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        TelnyxWebhookReceipt: {
            eventType: string;
            /** @description Whether the event moved the call (answered, hung up); every other event is acknowledged and changes nothing */
            applied: boolean;
        };
        CreateContactListRequest: {
            name: components["schemas"]["Trim"];
            metadata?: Record<string, unknown>;
        };
        ContactList: {
            /**
             * Format: uuid
             * @description ContactListId (UUID)
             */
            id: string;
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            tenantId: string;
            name: string;
            metadata: Record<string, unknown>;
            /**
             * int
             * @description Contacts in the list
             */
            contactCount: number;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        /** @description CONTACT_LIST_NAME_TAKEN */
        CONTACT_LIST_NAME_TAKEN: {
            error: {
                /** @enum {string} */
                code: "CONTACT_LIST_NAME_TAKEN";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        ContactListPage: {
            items: components["schemas"]["ContactList"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description CONTACT_LIST_NOT_FOUND */
        CONTACT_LIST_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "CONTACT_LIST_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        UpdateContactListRequest: {
            name?: components["schemas"]["Trim"];
            /** @description Merged into the stored metadata (RFC 7396); null values remove keys */
            metadata?: Record<string, unknown>;
        };
        /** @description CONTACT_LIST_IN_USE */
        CONTACT_LIST_IN_USE: {
            error: {
                /** @enum {string} */
                code: "CONTACT_LIST_IN_USE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        ImportResult: {
            imported: components["schemas"]["Int"];
            skipped: components["schemas"]["Int"];
            invalidRows: {
                /**
                 * int
                 * @description CSV: the spreadsheet row (the header is row 1, the first contact row 2; blank lines count). JSON: the position in contacts, from 1
                 */
                row: number;
                /** @description The phone value as sent */
                phone: string;
                /** @description duplicate | missing_phone | invalid_phone | missing_country_code | invalid_email | invalid_name | invalid_metadata */
                reason: string;
            }[];
        };
        /** @description UNSUPPORTED_FILE_TYPE */
        UNSUPPORTED_FILE_TYPE: {
            error: {
                /** @enum {string} */
                code: "UNSUPPORTED_FILE_TYPE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description TOO_MANY_ROWS */
        TOO_MANY_ROWS: {
            error: {
                /** @enum {string} */
                code: "TOO_MANY_ROWS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description MISSING_PHONE_COLUMN */
        MISSING_PHONE_COLUMN: {
            error: {
                /** @enum {string} */
                code: "MISSING_PHONE_COLUMN";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description INVALID_CSV */
        INVALID_CSV: {
            error: {
                /** @enum {string} */
                code: "INVALID_CSV";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        ContactsPage: {
            data: components["schemas"]["Contact"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            /**
             * int
             * @description Page size; without page and limit, the whole list and its size
             */
            limit: number;
        };
        Contact: {
            /**
             * Format: uuid
             * @description ContactId (UUID)
             */
            id: string;
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            tenantId: string;
            /**
             * Format: uuid
             * @description ContactListId (UUID)
             */
            contactListId: string;
            /** @description E.164 */
            phoneNumber: string;
            name: string | null;
            email: string | null;
            metadata: Record<string, unknown>;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        /** @description details.reason: missing_phone | invalid_phone | missing_country_code | invalid_email | invalid_name | invalid_metadata */
        INVALID_CONTACT: {
            error: {
                /** @enum {string} */
                code: "INVALID_CONTACT";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description CONTACT_EXISTS */
        CONTACT_EXISTS: {
            error: {
                /** @enum {string} */
                code: "CONTACT_EXISTS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        BulkContactsRequest: {
            /**
             * maxItems(500)
             * @description an array of at most 500 item(s)
             */
            contacts: components["schemas"]["ContactInput"][];
        };
        ContactInput: {
            phoneNumber: string;
            name?: string | null;
            email?: string | null;
            /** unknown */
            metadata?: unknown;
        };
        UpdateContactRequest: {
            phoneNumber?: string;
            name?: string | null;
            email?: string | null;
            /** @description Merged into the stored metadata (RFC 7396); null values remove keys */
            metadata?: Record<string, unknown>;
        };
        Campaign: {
            /**
             * Format: uuid
             * @description CampaignId (UUID)
             */
            id: string;
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            tenantId: string;
            name: string;
            description: string;
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            /**
             * Format: uuid
             * @description VoiceNumberId (UUID)
             */
            voiceNumberId: string;
            /**
             * Format: uuid
             * @description ContactListId (UUID)
             */
            contactListId: string;
            /** @enum {string} */
            status: "DRAFT" | "SCHEDULED" | "RUNNING" | "PAUSED" | "COMPLETED" | "FAILED";
            /** @description Why the campaign is PAUSED (PAUSED_BY_USER, INSUFFICIENT_FUNDS) or FAILED (ABORTED, AGENT_INACTIVE, …) */
            statusReason: ("PAUSED_BY_USER" | "INSUFFICIENT_FUNDS" | "ABORTED" | "AGENT_INACTIVE" | "AGENT_NOT_FOUND" | "VOICE_NUMBER_REMOVED" | "CONTACT_LIST_NOT_FOUND") | null;
            /**
             * int
             * @description Contacts snapshotted from the list when dialing started
             */
            totalContacts: number;
            /**
             * int
             * @description Contacts dialed at least once
             */
            dialedContacts: number;
            /**
             * int
             * @description Contacts with an answered call
             */
            answeredContacts: number;
            /**
             * int
             * @description Seconds
             */
            dialTimeout: number;
            maxAttempts: components["schemas"]["Int"];
            /**
             * int
             * @description Minutes
             */
            redialDelayMin: number;
            maxConcurrentCalls: components["schemas"]["Int"];
            scheduledAt: components["schemas"]["Timestamp"] | null;
            startedAt: components["schemas"]["Timestamp"] | null;
            completedAt: components["schemas"]["Timestamp"] | null;
            timezone: string;
            callWindowStart: string;
            callWindowEnd: string;
            callDays: components["schemas"]["Int"][];
            /** @description Recipient-local calling hours: when enabled, a contact is dialed only while it is between start (inclusive) and end (exclusive) in every time zone its number may be in (the US TCPA allows 08:00-21:00), on top of the campaign's own call window. A contact outside them waits for its next opening: not an attempt, not a failure. See docs/campaigns.md for how zones are derived. */
            recipientCallingHours: {
                enabled: boolean;
                start: string;
                end: string;
            };
            metadata: Record<string, unknown>;
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        CampaignPage: {
            items: components["schemas"]["Campaign"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description CAMPAIGN_NOT_FOUND */
        CAMPAIGN_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "CAMPAIGN_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description details: {status, allowedFrom} */
        CAMPAIGN_STATE_CONFLICT: {
            error: {
                /** @enum {string} */
                code: "CAMPAIGN_STATE_CONFLICT";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        ScheduledCampaign: {
            /**
             * Format: uuid
             * @description CampaignId (UUID)
             */
            id: string;
            name: string;
            /** @enum {string} */
            status: "SCHEDULED";
            scheduledAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        /** @description CAMPAIGN_ACTIVE */
        CAMPAIGN_ACTIVE: {
            error: {
                /** @enum {string} */
                code: "CAMPAIGN_ACTIVE";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        CampaignAttemptPage: {
            items: components["schemas"]["CampaignAttempt"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        CampaignAttempt: {
            /**
             * Format: uuid
             * @description a Universally Unique Identifier
             */
            id: string;
            /**
             * Format: uuid
             * @description CampaignId (UUID)
             */
            campaignId: string;
            /**
             * Format: uuid
             * @description ContactId (UUID)
             */
            contactId: string;
            phoneNumber: string;
            contactName: string | null;
            attemptNumber: components["schemas"]["Int"];
            /**
             * @description CLAIMED: reserved before the dial; DIALED: the call was placed; ENDED: it has its outcome; SKIPPED: not dialed, for good (skipReason DO_NOT_CALL, or NO_CALLING_HOURS: the contact's local hours never overlap the campaign's window)
             * @enum {string}
             */
            status: "CLAIMED" | "DIALED" | "ENDED" | "SKIPPED";
            outcome: ("ANSWERED" | "UNANSWERED" | "BUSY" | "FAILED" | "CANCELED") | null;
            skipReason: string | null;
            sessionId: string | null;
            claimedAt: components["schemas"]["Timestamp"];
            dialedAt: components["schemas"]["Timestamp"] | null;
            endedAt: components["schemas"]["Timestamp"] | null;
        };
        CampaignProgress: {
            /**
             * Format: uuid
             * @description CampaignId (UUID)
             */
            campaignId: string;
            /** @enum {string} */
            status: "DRAFT" | "SCHEDULED" | "RUNNING" | "PAUSED" | "COMPLETED" | "FAILED";
            statusReason: ("PAUSED_BY_USER" | "INSUFFICIENT_FUNDS" | "ABORTED" | "AGENT_INACTIVE" | "AGENT_NOT_FOUND" | "VOICE_NUMBER_REMOVED" | "CONTACT_LIST_NOT_FOUND") | null;
            totalContacts: components["schemas"]["Int"];
            dialedContacts: components["schemas"]["Int"];
            answeredContacts: components["schemas"]["Int"];
            contacts: {
                pending: components["schemas"]["Int"];
                inProgress: components["schemas"]["Int"];
                answered: components["schemas"]["Int"];
                /**
                 * int
                 * @description Every attempt used without an answer
                 */
                exhausted: number;
                /**
                 * int
                 * @description Not dialed, for good: on the do-not-call list, or never inside their local calling hours
                 */
                skipped: number;
                /**
                 * int
                 * @description Pending contacts held until their own local calling hours open (recipientCallingHours); counted in pending too
                 */
                awaitingLocalHours: number;
                /**
                 * int
                 * @description Not dialed again because the campaign was aborted or the call hung up by API
                 */
                cancelled: number;
            };
            attempts: {
                total: components["schemas"]["Int"];
                inProgress: components["schemas"]["Int"];
                answered: components["schemas"]["Int"];
                unanswered: components["schemas"]["Int"];
                busy: components["schemas"]["Int"];
                failed: components["schemas"]["Int"];
                canceled: components["schemas"]["Int"];
            };
            /** @description answeredContacts / dialedContacts; null before any dial */
            answerRate: number | null;
            callWindowOpen: boolean;
            /** @description When dialing is waiting for the call window */
            nextWindowOpensAt: components["schemas"]["Timestamp"] | null;
            /** @description The earliest redial due */
            nextAttemptAt: components["schemas"]["Timestamp"] | null;
        };
        AddDncRequest: {
            phoneNumber: components["schemas"]["E164"];
            /**
             * maxLength(500)
             * @description a string at most 500 character(s) long
             */
            reason?: string;
        };
        DncEntry: {
            phoneNumber: string;
            reason: string | null;
            createdAt: components["schemas"]["Timestamp"];
        };
        DncPage: {
            items: components["schemas"]["DncEntry"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description DNC_NOT_FOUND */
        DNC_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "DNC_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        CreateChatAppCampaignRequest: {
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            name?: components["schemas"]["Trim"];
            phoneNumberId?: components["schemas"]["Trim"];
            isActive?: boolean;
            /** @description 1 to 20 mappings, each (process, callStatus, languageCode) at most once (languageCode after its default en_US), so an outcome may have a template per language. Of the mappings for a call's (process, callStatus), the one sent is the one in the contact's language (the contact's metadata.languageCode; case and - or _ do not matter, so es-MX is es_MX), else in the agent's (the agent's settings.languageCode), else the first with the contact's, then the agent's, primary language (contact es_MX → es_ES), else the en_US one, else the first configured. Values that are not language tags are ignored. */
            templates: components["schemas"]["ChatAppTemplateMappingInput"][];
        };
        ChatAppTemplateMappingInput: {
            templateName: string;
            /** @enum {string} */
            process: "INCOMING" | "OUTGOING";
            /** @enum {string} */
            callStatus: "ANSWERED" | "UNANSWERED" | "FAILED" | "BUSY";
            /** @description The template's language, default en_US. A campaign may map the same (process, callStatus) once per language. Of the mappings for a call's (process, callStatus), the one sent is the one in the contact's language (the contact's metadata.languageCode; case and - or _ do not matter, so es-MX is es_MX), else in the agent's (the agent's settings.languageCode), else the first with the contact's, then the agent's, primary language (contact es_MX → es_ES), else the en_US one, else the first configured. Values that are not language tags are ignored. */
            languageCode?: string;
            bodyParameters?: string[];
        };
        ChatAppCampaign: {
            /**
             * Format: uuid
             * @description ChatAppCampaignId (UUID)
             */
            id: string;
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            tenantId: string;
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            name: string;
            /** @description Sender number id at the messaging platform; overrides the agent's settings.phoneNumberId */
            phoneNumberId: string | null;
            isActive: boolean;
            templates: components["schemas"]["ChatAppTemplateMapping"][];
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        ChatAppTemplateMapping: {
            /** @description Assigned by the service */
            id: string;
            templateName: string;
            /** @description The template's language, default en_US. A campaign may map the same (process, callStatus) once per language. Of the mappings for a call's (process, callStatus), the one sent is the one in the contact's language (the contact's metadata.languageCode; case and - or _ do not matter, so es-MX is es_MX), else in the agent's (the agent's settings.languageCode), else the first with the contact's, then the agent's, primary language (contact es_MX → es_ES), else the en_US one, else the first configured. Values that are not language tags are ignored. */
            languageCode: string;
            /**
             * @description The call's direction
             * @enum {string}
             */
            process: "INCOMING" | "OUTGOING";
            /**
             * @description The call's outcome
             * @enum {string}
             */
            callStatus: "ANSWERED" | "UNANSWERED" | "FAILED" | "BUSY";
            bodyParameters: string[];
        };
        /** @description CHATAPP_CAMPAIGN_EXISTS */
        CHATAPP_CAMPAIGN_EXISTS: {
            error: {
                /** @enum {string} */
                code: "CHATAPP_CAMPAIGN_EXISTS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        ChatAppCampaignPage: {
            items: components["schemas"]["ChatAppCampaign"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description CHATAPP_CAMPAIGN_NOT_FOUND */
        CHATAPP_CAMPAIGN_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "CHATAPP_CAMPAIGN_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        UpdateChatAppCampaignRequest: {
            name?: components["schemas"]["Trim"];
            /** @description null removes the override */
            phoneNumberId?: components["schemas"]["Trim"] | null;
            isActive?: boolean;
            /** @description Replaces the whole set. 1 to 20 mappings, each (process, callStatus, languageCode) at most once (languageCode after its default en_US), so an outcome may have a template per language. Of the mappings for a call's (process, callStatus), the one sent is the one in the contact's language (the contact's metadata.languageCode; case and - or _ do not matter, so es-MX is es_MX), else in the agent's (the agent's settings.languageCode), else the first with the contact's, then the agent's, primary language (contact es_MX → es_ES), else the en_US one, else the first configured. Values that are not language tags are ignored. */
            templates?: components["schemas"]["ChatAppTemplateMappingInput"][];
        };
        AttachNumberRequest: {
            phoneNumberId: components["schemas"]["Trim"];
        };
        AgentNumberAttachment: {
            id: components["schemas"]["UUID"];
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            tenantId: string;
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            phoneNumberId: string;
            updatedAt: components["schemas"]["Timestamp"];
        };
        ChatAppWebhookToken: {
            token: string;
        };
        ChatAppWebhookDetails: {
            webhookUrl: string;
            verifyToken: string;
        };
        /** @description WEBHOOK_TOKEN_NOT_ISSUED */
        WEBHOOK_TOKEN_NOT_ISSUED: {
            error: {
                /** @enum {string} */
                code: "WEBHOOK_TOKEN_NOT_ISSUED";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        ChatAppMessagePage: {
            items: components["schemas"]["MessageLog"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        MessageLog: {
            /**
             * Format: uuid
             * @description MessageId (UUID)
             */
            id: string;
            /** @enum {string} */
            channel: "CHATAPP" | "SMS";
            /**
             * Format: uuid
             * @description The call this message follows
             */
            sessionId: string;
            /**
             * Format: uuid
             * @description The chat-app or SMS campaign
             */
            campaignId: string;
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            contactId: string | null;
            /** @enum {string} */
            callDirection: "INCOMING" | "OUTGOING";
            /** @enum {string} */
            callOutcome: "ANSWERED" | "UNANSWERED" | "BUSY" | "FAILED" | "CANCELED";
            to: components["schemas"]["E164"];
            /** @description Phone number id (chat-app), number or sender id (SMS); null when none could be found (the message fails with NO_SENDER) */
            sender: string | null;
            /** @description CHATAPP, or the SMS provider (PROVIDER_A, PROVIDER_B, PROVIDER_C) */
            provider: string;
            /** @description The adapter that sent it: simulated, whatsapp-cloud, twilio, … */
            adapter: string | null;
            templateName: string | null;
            languageCode: string | null;
            /** @description SMS: the rendered text */
            body: string | null;
            /** @description Chat-app: the rendered template parameters */
            bodyParameters: string[];
            encoding: ("GSM7" | "UCS2") | null;
            segments: components["schemas"]["Int"] | null;
            /**
             * int
             * @description Minor units charged to the wallet (0 until sent)
             */
            cost: number;
            currency: string;
            /** @enum {string} */
            status: "QUEUED" | "SENDING" | "SENT" | "DELIVERED" | "READ" | "FAILED";
            providerMessageId: string | null;
            attempts: components["schemas"]["Int"];
            lastHttpStatus: components["schemas"]["Int"] | null;
            errorCode: string | null;
            errorMessage: string | null;
            nextAttemptAt: components["schemas"]["Timestamp"] | null;
            createdAt: components["schemas"]["Timestamp"];
            sentAt: components["schemas"]["Timestamp"] | null;
            deliveredAt: components["schemas"]["Timestamp"] | null;
            readAt: components["schemas"]["Timestamp"] | null;
            failedAt: components["schemas"]["Timestamp"] | null;
        };
        ChatAppReplyPage: {
            items: components["schemas"]["ChatAppReply"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        ChatAppReply: {
            id: components["schemas"]["UUID"];
            providerMessageId: string;
            from: string;
            phoneNumberId: string;
            type: string;
            text: string | null;
            contactName: string | null;
            receivedAt: components["schemas"]["Timestamp"];
        };
        WebhookReceipt: {
            /**
             * int
             * @description Status updates recorded (repeats of one already recorded are not counted)
             */
            statuses: number;
            /**
             * int
             * @description Inbound messages recorded
             */
            replies: number;
        };
        /** @description WEBHOOK_PAYLOAD_INVALID */
        WEBHOOK_PAYLOAD_INVALID: {
            error: {
                /** @enum {string} */
                code: "WEBHOOK_PAYLOAD_INVALID";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        /** @description WEBHOOK_SIGNATURE_INVALID */
        WEBHOOK_SIGNATURE_INVALID: {
            error: {
                /** @enum {string} */
                code: "WEBHOOK_SIGNATURE_INVALID";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        CreateSmsCampaignRequest: {
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            name?: string;
            senderNumber?: string;
            /** @enum {string} */
            senderProvider?: "PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C";
            isActive?: boolean;
            templates: components["schemas"]["SmsTemplateInput"][];
        };
        SmsTemplateInput: {
            /** @enum {string} */
            callStatus: "ANSWERED" | "UNANSWERED";
            messageBody: string;
            dltSenderId?: string;
            dltTemplateId?: string;
        };
        SmsCampaign: {
            /**
             * Format: uuid
             * @description SmsCampaignId (UUID)
             */
            id: string;
            /**
             * Format: uuid
             * @description TenantId (UUID)
             */
            tenantId: string;
            /**
             * Format: uuid
             * @description AgentId (UUID)
             */
            agentId: string;
            name: string;
            /** @description E.164 number or alphanumeric sender id; null: the agent's voice number */
            senderNumber: string | null;
            /** @description null: the platform's default SMS provider */
            senderProvider: ("PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C") | null;
            isActive: boolean;
            templates: components["schemas"]["SmsTemplate"][];
            createdAt: components["schemas"]["Timestamp"];
            updatedAt: components["schemas"]["Timestamp"];
        };
        SmsTemplate: {
            /** @description Assigned by the service */
            id: string;
            /** @enum {string} */
            callStatus: "ANSWERED" | "UNANSWERED";
            messageBody: string;
            dltSenderId: string | null;
            dltTemplateId: string | null;
        };
        /** @description SMS_CAMPAIGN_EXISTS */
        SMS_CAMPAIGN_EXISTS: {
            error: {
                /** @enum {string} */
                code: "SMS_CAMPAIGN_EXISTS";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        SmsCampaignPage: {
            items: components["schemas"]["SmsCampaign"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
        /** @description SMS_CAMPAIGN_NOT_FOUND */
        SMS_CAMPAIGN_NOT_FOUND: {
            error: {
                /** @enum {string} */
                code: "SMS_CAMPAIGN_NOT_FOUND";
                message: string;
                requestId: string;
                /** unknown */
                details?: unknown;
            };
        };
        UpdateSmsCampaignRequest: {
            name?: string;
            senderNumber?: string | null;
            senderProvider?: ("PROVIDER_A" | "PROVIDER_B" | "PROVIDER_C") | null;
            isActive?: boolean;
            /** @description Replaces the existing templates */
            templates?: components["schemas"]["SmsTemplateInput"][];
        };
        SmsMessagePage: {
            items: components["schemas"]["MessageLog"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            pageSize: components["schemas"]["Int"];
            totalPages: components["schemas"]["Int"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "health.healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Alive"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "health.readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
            /** @description The database is unreachable or migrations are pending; `details` holds the checks */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NOT_READY"];
                };
            };
        };
    };
    "auth.signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignupRequest"];
            };
        };
        responses: {
            /** @description SignupResponse */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignupResponse"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description EMAIL_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EMAIL_TAKEN"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "auth.login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoginRequest"];
            };
        };
        responses: {
            /** @description LoginResponse */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoginResponse"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description INVALID_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_CREDENTIALS"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "profile.getProfile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Profile */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Profile"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "profile.createTenant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTenantRequest"];
            };
        };
        responses: {
            /** @description Tenant */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description TENANT_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_EXISTS"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "profile.getTenant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "profile.updateTenant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateTenantRequest"];
            };
        };
        responses: {
            /** @description Tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tenant"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "apiKeys.listApiKeys": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ApiKeyPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "apiKeys.createApiKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyRequest"];
            };
        };
        responses: {
            /** @description CreatedApiKey */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["EXPIRY_IN_PAST"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "apiKeys.revokeApiKey": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ApiKeyId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"];
                };
            };
            /** @description API_KEY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["API_KEY_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "wallet.getWallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Wallet */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wallet"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "wallet.listTransactions": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description TransactionPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "wallet.getUsage": {
        parameters: {
            query?: {
                /** @description ISO 8601 instant, inclusive */
                from?: components["schemas"]["Timestamp"];
                /** @description ISO 8601 instant, exclusive */
                to?: components["schemas"]["Timestamp"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "wallet.getCallAnalytics": {
        parameters: {
            query?: {
                /** @description ISO 8601 instant, inclusive */
                from?: components["schemas"]["Timestamp"];
                /** @description ISO 8601 instant, exclusive */
                to?: components["schemas"]["Timestamp"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CallAnalytics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CallAnalytics"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "wallet.getRates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description RateCard */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateCard"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "topUps.topUp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TopUpRequest"];
            };
        };
        responses: {
            /** @description TopUpResult */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TopUpResult"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IDEMPOTENCY_KEY_REUSED"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "personas.listPersonas": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description PersonaPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonaPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "agents.listAgents": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description AgentPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "agents.createAgent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateAgentRequest"];
            };
        };
        responses: {
            /** @description Agent */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["PERSONA_NOT_FOUND"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "agents.getAgent": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description AgentId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Agent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "agents.updateAgent": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description AgentId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateAgentRequest"];
            };
        };
        responses: {
            /** @description Agent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["INVALID_AGENT_SETTINGS"] | components["schemas"]["UNKNOWN_KNOWLEDGE_BASE"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description WEBHOOK_TOKEN_REQUIRED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WEBHOOK_TOKEN_REQUIRED"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "agents.createAgentWebhookToken": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description AgentId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description AgentWebhookToken */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentWebhookToken"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "voiceNumbers.listVoiceNumbers": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description VoiceNumberPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VoiceNumberPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "voiceNumbers.createVoiceNumber": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateVoiceNumberRequest"];
            };
        };
        responses: {
            /** @description VoiceNumber */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VoiceNumber"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description VOICE_NUMBER_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VOICE_NUMBER_EXISTS"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "voiceNumbers.getVoiceNumber": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description VoiceNumberId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description VoiceNumber */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VoiceNumber"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description VOICE_NUMBER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VOICE_NUMBER_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "voiceNumbers.deleteVoiceNumber": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description VoiceNumberId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description VOICE_NUMBER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VOICE_NUMBER_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "agentWebhook.verifyAgentWebhook": {
        parameters: {
            query?: {
                "hub.mode"?: string;
                "hub.verify_token"?: string;
                "hub.challenge"?: string;
            };
            header?: never;
            path: {
                /** @description AgentId (UUID) */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a string */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description WEBHOOK_VERIFICATION_FAILED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WEBHOOK_VERIFICATION_FAILED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.placeCall": {
        parameters: {
            query?: never;
            header?: {
                /** @description Retries with the same key get the first answer; the same key with another body is refused */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PlaceCallRequest"];
            };
        };
        responses: {
            /** @description PlaceCallResponse */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlaceCallResponse"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description INSUFFICIENT_FUNDS */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INSUFFICIENT_FUNDS"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"] | components["schemas"]["VOICE_NUMBER_NOT_FOUND"] | components["schemas"]["CONTACT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description REQUEST_IN_PROGRESS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_IN_PROGRESS"] | components["schemas"]["AGENT_INACTIVE"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IDEMPOTENCY_KEY_REUSED"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"] | components["schemas"]["CONCURRENT_CALL_LIMIT"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.listCallLogs": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                /** @description AgentId (UUID) */
                agentId?: string;
                campaignId?: string;
                status?: "QUEUED" | "DIALING" | "RINGING" | "IN_PROGRESS" | "ENDED" | "ANSWERED" | "UNANSWERED" | "BUSY" | "FAILED" | "CANCELED";
                from?: components["schemas"]["Timestamp"];
                to?: components["schemas"]["Timestamp"];
                include?: "transcript";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CallLogPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CallLogPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.getCall": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CallSession */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CallSession"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CALL_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CALL_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.hangupCall": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HangupResult */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HangupResult"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CALL_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CALL_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.transferCall": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TransferCallRequest"];
            };
        };
        responses: {
            /** @description TransferCallResult */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransferCallResult"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CALL_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CALL_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CALL_NOT_LIVE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CALL_NOT_LIVE"] | components["schemas"]["TRANSFER_FAILED"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.getCallRecording": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "audio/wav": Blob;
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description RECORDING_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RECORDING_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.deleteCallRecording": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description RECORDING_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RECORDING_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "calls.listWebhookDeliveries": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description WebhookDeliveryPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "webCalls.startWebCall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StartWebCallRequest"];
            };
        };
        responses: {
            /** @description WebCallTicket */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebCallTicket"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description INSUFFICIENT_FUNDS */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INSUFFICIENT_FUNDS"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description AGENT_INACTIVE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_INACTIVE"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"] | components["schemas"]["CONCURRENT_CALL_LIMIT"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
            /** @description WEB_CALLS_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WEB_CALLS_UNAVAILABLE"];
                };
            };
        };
    };
    "knowledgeBases.listKnowledgeBases": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description KnowledgeBasePage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBasePage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.createKnowledgeBase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateKnowledgeBaseRequest"];
            };
        };
        responses: {
            /** @description KnowledgeBase */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBase"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["UNKNOWN_EMBEDDER"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description KB_KEY_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KB_KEY_TAKEN"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
            /** @description VECTOR_STORE_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VECTOR_STORE_UNAVAILABLE"];
                };
            };
        };
    };
    "knowledgeBases.getKnowledgeBase": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description KnowledgeBase */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBase"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.deleteKnowledgeBase": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
            /** @description VECTOR_STORE_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VECTOR_STORE_UNAVAILABLE"];
                };
            };
        };
    };
    "knowledgeBases.updateKnowledgeBase": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateKnowledgeBaseRequest"];
            };
        };
        responses: {
            /** @description KnowledgeBase */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBase"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["UNKNOWN_EMBEDDER"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description KB_KEY_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KB_KEY_TAKEN"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.addSource": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["TextSource"] | components["schemas"]["UrlSource"]) | components["schemas"]["FaqSource"];
            };
        };
        responses: {
            /** @description KbDocument */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KbDocument"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["URL_NOT_ALLOWED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.uploadDocuments": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    file: components["schemas"]["PersistedFile"][];
                };
            };
        };
        responses: {
            /** @description UploadResult */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadResult"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["NO_FILES"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"] | components["schemas"]["DOCUMENT_TOO_LONG"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"] | components["schemas"]["UNSUPPORTED_DOCUMENT_TYPE"];
                };
            };
            /** @description DOCUMENT_UNREADABLE */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DOCUMENT_UNREADABLE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.listDocuments": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description KbDocumentPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KbDocumentPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.getDocument": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
                /** @description KbDocumentId (UUID) */
                documentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description KbDocument */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KbDocument"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"] | components["schemas"]["DOCUMENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.deleteDocument": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
                /** @description KbDocumentId (UUID) */
                documentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"] | components["schemas"]["DOCUMENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.listIngestionJobs": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description IngestionJobPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestionJobPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.createIngestionJob": {
        parameters: {
            query?: {
                /** @description true: embed every document again, changed or not */
                full?: "true" | "false";
            };
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description IngestionJobAccepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestionJobAccepted"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.getIngestionJob": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
                /** @description IngestionJobId (UUID) */
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description IngestionJob */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestionJob"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"] | components["schemas"]["INGESTION_JOB_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "knowledgeBases.queryKnowledgeBase": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description KnowledgeBaseId (UUID) */
                kbId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QueryRequest"];
            };
        };
        responses: {
            /** @description QueryResult */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueryResult"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description KNOWLEDGE_BASE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KNOWLEDGE_BASE_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
            /** @description VECTOR_STORE_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VECTOR_STORE_UNAVAILABLE"] | components["schemas"]["EMBEDDER_UNAVAILABLE"];
                };
            };
        };
    };
    "telephonyCallbacks.twilioStatus": {
        parameters: {
            query?: never;
            header?: {
                "x-twilio-signature"?: string;
            };
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    [key: string]: string;
                };
            };
        };
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description INVALID_SIGNATURE */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_SIGNATURE"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "telephonyCallbacks.twilioAmd": {
        parameters: {
            query?: never;
            header?: {
                "x-twilio-signature"?: string;
            };
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    [key: string]: string;
                };
            };
        };
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["INVALID_CARRIER_PAYLOAD"];
                };
            };
            /** @description INVALID_SIGNATURE */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_SIGNATURE"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "telephonyCallbacks.twilioStreamEnded": {
        parameters: {
            query?: never;
            header?: {
                "x-twilio-signature"?: string;
            };
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    [key: string]: string;
                };
            };
        };
        responses: {
            /** @description TwiML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/xml": string;
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description INVALID_SIGNATURE */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_SIGNATURE"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "telephonyCallbacks.telnyxWebhook": {
        parameters: {
            query?: never;
            header?: {
                "telnyx-signature-ed25519"?: string;
                "telnyx-timestamp"?: string;
            };
            path: {
                /** @description a Universally Unique Identifier */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description TelnyxWebhookReceipt */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TelnyxWebhookReceipt"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["INVALID_CARRIER_PAYLOAD"];
                };
            };
            /** @description INVALID_SIGNATURE */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_SIGNATURE"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "telephonyCallbacks.twilioIncomingCall": {
        parameters: {
            query?: never;
            header?: {
                "x-twilio-signature"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    [key: string]: string;
                };
            };
        };
        responses: {
            /** @description TwiML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/xml": string;
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["INVALID_CARRIER_PAYLOAD"];
                };
            };
            /** @description INVALID_SIGNATURE */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_SIGNATURE"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "telephonyCallbacks.twilioIncomingCallStatus": {
        parameters: {
            query?: never;
            header?: {
                "x-twilio-signature"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    [key: string]: string;
                };
            };
        };
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description INVALID_SIGNATURE */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_SIGNATURE"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "telephonyCallbacks.telnyxIncomingCall": {
        parameters: {
            query?: never;
            header?: {
                "telnyx-signature-ed25519"?: string;
                "telnyx-timestamp"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description TelnyxWebhookReceipt */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TelnyxWebhookReceipt"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["INVALID_CARRIER_PAYLOAD"];
                };
            };
            /** @description INVALID_SIGNATURE */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INVALID_SIGNATURE"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.listContactLists": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ContactListPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactListPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.createContactList": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateContactListRequest"];
            };
        };
        responses: {
            /** @description ContactList */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactList"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CONTACT_LIST_NAME_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NAME_TAKEN"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.getContactList": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ContactList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactList"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.deleteContactList": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CONTACT_LIST_IN_USE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_IN_USE"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.updateContactList": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateContactListRequest"];
            };
        };
        responses: {
            /** @description ContactList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactList"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CONTACT_LIST_NAME_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NAME_TAKEN"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.uploadContacts": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * itemsCount(1)
                     * @description an array of exactly 1 item(s)
                     */
                    file: components["schemas"]["PersistedFile"][];
                };
            };
        };
        responses: {
            /** @description ImportResult */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportResult"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["UNSUPPORTED_FILE_TYPE"] | components["schemas"]["TOO_MANY_ROWS"] | components["schemas"]["MISSING_PHONE_COLUMN"] | components["schemas"]["INVALID_CSV"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.listContacts": {
        parameters: {
            query?: {
                page?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                listId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ContactsPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactsPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.createContact": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                listId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    phoneNumber: string;
                    name?: string | null;
                    email?: string | null;
                    /** unknown */
                    metadata?: unknown;
                };
            };
        };
        responses: {
            /** @description Contact */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["INVALID_CONTACT"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CONTACT_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_EXISTS"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.createContactsBulk": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                listId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkContactsRequest"];
            };
        };
        responses: {
            /** @description ImportResult */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportResult"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.getContact": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                listId: string;
                /** @description ContactId (UUID) */
                contactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"] | components["schemas"]["CONTACT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.deleteContact": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                listId: string;
                /** @description ContactId (UUID) */
                contactId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"] | components["schemas"]["CONTACT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "contactLists.updateContact": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ContactListId (UUID) */
                listId: string;
                /** @description ContactId (UUID) */
                contactId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateContactRequest"];
            };
        };
        responses: {
            /** @description Contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["INVALID_CONTACT"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CONTACT_LIST_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_LIST_NOT_FOUND"] | components["schemas"]["CONTACT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CONTACT_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CONTACT_EXISTS"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.listCampaigns": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                status?: "DRAFT" | "SCHEDULED" | "RUNNING" | "PAUSED" | "COMPLETED" | "FAILED";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CampaignPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CampaignPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.createCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: components["schemas"]["Trim"];
                    /**
                     * maxLength(2000)
                     * @description a string at most 2000 character(s) long
                     */
                    description?: string;
                    /**
                     * Format: uuid
                     * @description AgentId (UUID)
                     */
                    agentId: string;
                    /**
                     * Format: uuid
                     * @description VoiceNumberId (UUID)
                     */
                    voiceNumberId: string;
                    /**
                     * Format: uuid
                     * @description ContactListId (UUID)
                     */
                    contactListId: string;
                    dialTimeout?: number;
                    maxAttempts?: number;
                    redialDelayMin?: number;
                    timezone?: string;
                    callWindowStart?: string;
                    callWindowEnd?: string;
                    callDays?: components["schemas"]["Int"][];
                    maxConcurrentCalls?: number;
                    recipientCallingHours?: {
                        /** @description Whether the contact's own local hours restrict dialing */
                        enabled: boolean;
                        /** @description HH:MM in the contact's time zone, inclusive (default 08:00) */
                        start?: string;
                        /** @description HH:MM in the contact's time zone, exclusive (default 21:00) */
                        end?: string;
                    };
                    metadata?: Record<string, unknown>;
                };
            };
        };
        responses: {
            /** @description Campaign */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"] | components["schemas"]["VOICE_NUMBER_NOT_FOUND"] | components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description AGENT_INACTIVE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_INACTIVE"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.getCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Campaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.deleteCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CAMPAIGN_ACTIVE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_ACTIVE"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.updateCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: components["schemas"]["Trim"];
                    /**
                     * maxLength(2000)
                     * @description a string at most 2000 character(s) long
                     */
                    description?: string;
                    /**
                     * Format: uuid
                     * @description AgentId (UUID)
                     */
                    agentId?: string;
                    /**
                     * Format: uuid
                     * @description VoiceNumberId (UUID)
                     */
                    voiceNumberId?: string;
                    /**
                     * Format: uuid
                     * @description ContactListId (UUID)
                     */
                    contactListId?: string;
                    dialTimeout?: number;
                    maxAttempts?: number;
                    redialDelayMin?: number;
                    timezone?: string;
                    callWindowStart?: string;
                    callWindowEnd?: string;
                    callDays?: components["schemas"]["Int"][];
                    maxConcurrentCalls?: number;
                    recipientCallingHours?: {
                        /** @description Whether the contact's own local hours restrict dialing */
                        enabled: boolean;
                        /** @description HH:MM in the contact's time zone, inclusive (default 08:00) */
                        start?: string;
                        /** @description HH:MM in the contact's time zone, exclusive (default 21:00) */
                        end?: string;
                    };
                    /** @description Merged into the stored metadata (RFC 7396) */
                    metadata?: Record<string, unknown>;
                };
            };
        };
        responses: {
            /** @description Campaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"] | components["schemas"]["AGENT_NOT_FOUND"] | components["schemas"]["VOICE_NUMBER_NOT_FOUND"] | components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description details: {status, allowedFrom} */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_STATE_CONFLICT"] | components["schemas"]["AGENT_INACTIVE"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.scheduleCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ScheduleCampaignRequest"];
            };
        };
        responses: {
            /** @description ScheduledCampaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduledCampaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"] | components["schemas"]["AGENT_NOT_FOUND"] | components["schemas"]["VOICE_NUMBER_NOT_FOUND"] | components["schemas"]["CONTACT_LIST_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description details: {status, allowedFrom} */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_STATE_CONFLICT"] | components["schemas"]["AGENT_INACTIVE"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.pauseCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Campaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description details: {status, allowedFrom} */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_STATE_CONFLICT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.resumeCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Campaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description details: {status, allowedFrom} */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_STATE_CONFLICT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.abortCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Campaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Campaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description details: {status, allowedFrom} */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_STATE_CONFLICT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.listCampaignAttempts": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CampaignAttemptPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CampaignAttemptPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "campaigns.getCampaignProgress": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description CampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CampaignProgress */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CampaignProgress"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "dnc.listDnc": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description DncPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DncPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "dnc.addDnc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AddDncRequest"];
            };
        };
        responses: {
            /** @description DncEntry */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DncEntry"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "dnc.removeDnc": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                phoneNumber: components["schemas"]["E164"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description DNC_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DNC_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.listChatAppCampaigns": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ChatAppCampaignPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppCampaignPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.createChatAppCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateChatAppCampaignRequest"];
            };
        };
        responses: {
            /** @description ChatAppCampaign */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppCampaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description CHATAPP_CAMPAIGN_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CHATAPP_CAMPAIGN_EXISTS"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.getChatAppCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ChatAppCampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ChatAppCampaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppCampaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CHATAPP_CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CHATAPP_CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.updateChatAppCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ChatAppCampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateChatAppCampaignRequest"];
            };
        };
        responses: {
            /** @description ChatAppCampaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppCampaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CHATAPP_CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CHATAPP_CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.deleteChatAppCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description ChatAppCampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description CHATAPP_CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CHATAPP_CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.attachChatAppNumber": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description AgentId (UUID) */
                agentId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AttachNumberRequest"];
            };
        };
        responses: {
            /** @description AgentNumberAttachment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentNumberAttachment"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.createChatAppWebhookToken": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ChatAppWebhookToken */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppWebhookToken"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.getChatAppWebhookDetails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ChatAppWebhookDetails */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppWebhookDetails"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description WEBHOOK_TOKEN_NOT_ISSUED */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WEBHOOK_TOKEN_NOT_ISSUED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.listChatAppMessages": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                status?: "QUEUED" | "SENDING" | "SENT" | "DELIVERED" | "READ" | "FAILED";
                sessionId?: components["schemas"]["UUID"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ChatAppMessagePage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppMessagePage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatApp.listChatAppReplies": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ChatAppReplyPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatAppReplyPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatAppWebhook.verifyChatAppWebhook": {
        parameters: {
            query?: {
                "hub.mode"?: string;
                "hub.verify_token"?: string;
                "hub.challenge"?: string;
            };
            header?: never;
            path: {
                /** @description TenantId (UUID) */
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a string */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description WEBHOOK_VERIFICATION_FAILED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WEBHOOK_VERIFICATION_FAILED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "chatAppWebhook.receiveChatAppWebhook": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description TenantId (UUID) */
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description WebhookReceipt */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookReceipt"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"] | components["schemas"]["WEBHOOK_PAYLOAD_INVALID"];
                };
            };
            /** @description WEBHOOK_SIGNATURE_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WEBHOOK_SIGNATURE_INVALID"];
                };
            };
            /** @description WEBHOOK_VERIFICATION_FAILED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WEBHOOK_VERIFICATION_FAILED"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "sms.listSmsCampaigns": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SmsCampaignPage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SmsCampaignPage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "sms.createSmsCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSmsCampaignRequest"];
            };
        };
        responses: {
            /** @description SmsCampaign */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SmsCampaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AGENT_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description SMS_CAMPAIGN_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SMS_CAMPAIGN_EXISTS"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "sms.getSmsCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description SmsCampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SmsCampaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SmsCampaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description SMS_CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SMS_CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "sms.updateSmsCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description SmsCampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSmsCampaignRequest"];
            };
        };
        responses: {
            /** @description SmsCampaign */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SmsCampaign"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description SMS_CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SMS_CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or multipart/form-data with a boundary for uploads; `details.expected` names it */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UNSUPPORTED_MEDIA_TYPE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "sms.deleteSmsCampaign": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description SmsCampaignId (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description SMS_CAMPAIGN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SMS_CAMPAIGN_NOT_FOUND"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
    "sms.listSmsMessages": {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                status?: "QUEUED" | "SENDING" | "SENT" | "DELIVERED" | "READ" | "FAILED";
                sessionId?: components["schemas"]["UUID"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SmsMessagePage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SmsMessagePage"];
                };
            };
            /** @description The request did not match the expected schema; `details` lists each offending field path */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VALIDATION_FAILED"];
                };
            };
            /** @description MISSING_CREDENTIALS */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MISSING_CREDENTIALS"] | components["schemas"]["MALFORMED_AUTHORIZATION"] | components["schemas"]["INVALID_API_KEY"] | components["schemas"]["API_KEY_EXPIRED"] | components["schemas"]["INVALID_SESSION"] | components["schemas"]["SESSION_EXPIRED"];
                };
            };
            /** @description The credential's user belongs to no tenant */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TENANT_CONTEXT_REQUIRED"] | components["schemas"]["API_KEY_NOT_ALLOWED"] | components["schemas"]["TENANT_MISMATCH"];
                };
            };
            /** @description The request body stopped arriving for longer than the body timeout (15 s by default), or the whole request took longer than the request timeout; the connection is closed */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["REQUEST_TIMEOUT"];
                };
            };
            /** @description The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PAYLOAD_TOO_LARGE"];
                };
            };
            /** @description The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` header's seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RATE_LIMITED"];
                };
            };
            /** @description INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["INTERNAL_ERROR"];
                };
            };
        };
    };
}
