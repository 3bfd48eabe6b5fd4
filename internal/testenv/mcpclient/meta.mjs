#!/usr/bin/env node
// meta.mjs: reads the OAuth protected resource metadata (RFC 9728) of an MCP
// endpoint of `chromafs serve --sites` the way the official TypeScript SDK's
// sign-in does: an initialize without a token, the resource_metadata of the
// 401's WWW-Authenticate header, the document it names, the document the
// SDK finds from the endpoint's URL alone (the path-aware well-known URL),
// and whether the SDK accepts the document's resource for the endpoint.
//
// Usage: node meta.mjs URL
//
// It prints one JSON object on standard output: status (of the
// initialize), error (of the challenge), resourceMetadataUrl, byHeader,
// byPath (the two documents) and allowed; it exits 1 when a step throws.

import { extractWWWAuthenticateParams, discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { resourceUrlFromServerUrl, checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: node meta.mjs URL\n');
  process.exit(2);
}
try {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'meta.mjs', version: '1' } } }),
  });
  await res.text();
  const params = extractWWWAuthenticateParams(res);
  const byHeader = params.resourceMetadataUrl
    ? await discoverOAuthProtectedResourceMetadata(url, { resourceMetadataUrl: params.resourceMetadataUrl })
    : null;
  const byPath = await discoverOAuthProtectedResourceMetadata(url);
  const allowed = byHeader
    ? checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(url), configuredResource: byHeader.resource })
    : false;
  process.stdout.write(JSON.stringify({
    status: res.status, error: params.error ?? '', resourceMetadataUrl: params.resourceMetadataUrl?.href ?? '',
    byHeader, byPath, allowed,
  }) + '\n');
} catch (e) {
  process.stderr.write(`meta.mjs: ${e.stack ?? e}\n`);
  process.exit(1);
}
