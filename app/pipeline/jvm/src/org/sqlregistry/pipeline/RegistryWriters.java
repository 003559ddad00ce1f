package org.sqlregistry.pipeline;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Writer schemas an executor finds itself, through the registry's REST API, for streams: the
 * driver cannot see a stream's headers ahead, so writers registered while the query runs reach
 * the executors this way. It behaves as the Python client (app/client/registry_client.py) does
 * in a Python worker: GET /schemas/ids/{id} (or /schemas/fingerprints/{hex} for single-object
 * framing), then each reference it lists through /subjects/{s}/versions/{v}, dependencies
 * first; the same Authorization header; the URLs tried in turn over retry rounds with backoff
 * after a connection failure or a 5xx answer. A found writer is cached for the life of the JVM
 * (ids never change), concurrent misses on one header make one request, and a writer the
 * registry does not know (40403) is the record's error, asked about again only after a minute,
 * as app/pipeline/workers.py does. Any other failure (unreachable, 401, 403, a missing
 * reference) throws: it is no record's fault, so the task fails in either on_error mode.
 */
final class RegistryWriters {
    /** A header naming a writer the registry does not know: the record's error text. */
    static final class WriterNotFound extends Exception {
        private static final long serialVersionUID = 1L;

        WriterNotFound(String message) {
            super(message, null, false, false);
        }
    }

    private static final long UNKNOWN_WRITER_TTL_NANOS = 60_000_000_000L;
    private static final String ACCEPT =
            "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** One instance per registry configuration per JVM, so its caches outlive plans and tasks. */
    private static final ConcurrentHashMap<String, RegistryWriters> SHARED = new ConcurrentHashMap<>();

    private final List<String> urls = new ArrayList<>();
    private final String authorization;
    private final Duration timeout;
    private final int retries;
    private final double backoff;
    private final double backoffMax;
    private final int maxReplyBytes;
    private final boolean byFingerprint;
    private final HttpClient http;
    private final ConcurrentHashMap<ByteBuffer, Lookup> lookups = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, JsonNode> versions = new ConcurrentHashMap<>();
    private volatile int preferred;

    private static final class Lookup {
        final CompletableFuture<List<String>> texts = new CompletableFuture<>();
        volatile long expires = Long.MAX_VALUE;

        boolean expired() {
            return texts.isCompletedExceptionally() && System.nanoTime() - expires > 0;
        }
    }

    private RegistryWriters(JsonNode registry, boolean byFingerprint) {
        for (JsonNode url : registry.get("urls")) {
            urls.add(url.asText().replaceAll("/+$", ""));
        }
        JsonNode header = registry.get("authorization");
        authorization = header == null || header.isNull() ? null : header.asText();
        timeout = Duration.ofMillis((long) (registry.get("timeout").asDouble() * 1000));
        retries = registry.get("retries").asInt();
        backoff = registry.get("backoff").asDouble();
        backoffMax = registry.get("backoff_max").asDouble();
        maxReplyBytes = registry.get("max_reply_bytes").asInt();
        this.byFingerprint = byFingerprint;
        http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The JVM's shared instance for this registry configuration and framing. */
    static RegistryWriters of(JsonNode registry, boolean byFingerprint) {
        String key = registry.toString() + (byFingerprint ? "#fingerprint" : "#id");
        return SHARED.computeIfAbsent(key, unused -> new RegistryWriters(registry, byFingerprint));
    }

    /** The texts of the header's writer, its references' first. */
    List<String> writerTexts(ByteBuffer header) throws WriterNotFound {
        while (true) {
            Lookup mine = new Lookup();
            Lookup found = lookups.putIfAbsent(header, mine);
            if (found == null) {
                found = mine;
                try {
                    mine.texts.complete(fetch(header.array()));
                } catch (WriterNotFound e) {
                    mine.expires = System.nanoTime() + UNKNOWN_WRITER_TTL_NANOS;
                    mine.texts.completeExceptionally(e);
                } catch (RuntimeException | Error e) {
                    // Not kept: the next record asks again (and threads waiting on this one see it).
                    lookups.remove(header, mine);
                    mine.texts.completeExceptionally(e);
                }
            } else if (found.expired()) {
                lookups.remove(header, found);
                continue;
            }
            try {
                return found.texts.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof WriterNotFound) {
                    throw (WriterNotFound) e.getCause();
                }
                if (e.getCause() instanceof Error) {
                    throw (Error) e.getCause();
                }
                throw (RuntimeException) e.getCause();
            }
        }
    }

    private List<String> fetch(byte[] header) throws WriterNotFound {
        JsonNode writer = byFingerprint
                ? get("/schemas/fingerprints/" + PlanFiles.hex(header, 2, 10) + "?algorithm=crc64", true)
                : get("/schemas/ids/" + Integer.toUnsignedLong(ByteBuffer.wrap(header, 1, 4).getInt()), true);
        Map<String, String> ordered = new LinkedHashMap<>();
        try {
            references(writer, ordered, new ArrayList<>());
        } catch (WriterNotFound e) {
            // A writer the registry knows whose reference it does not: the registry's fault, not the record's.
            throw new IllegalStateException("a reference of the writer of header " + PlanFiles.hex(header, 0, header.length)
                    + " is missing: " + e.getMessage(), e);
        }
        List<String> texts = new ArrayList<>(ordered.values());
        texts.add(writer.path("schema").asText());
        return texts;
    }

    /** Every schema `schema` references, transitively, dependencies before dependents, each once. */
    private void references(JsonNode schema, Map<String, String> ordered, List<String> trail) throws WriterNotFound {
        for (JsonNode reference : schema.path("references")) {
            String subject = reference.path("subject").asText();
            String key = subject + "\u0000" + reference.path("version").asText();
            if (trail.contains(key)) {
                throw new IllegalStateException("circular schema references through " + subject + " v"
                        + reference.path("version").asText());
            }
            if (ordered.containsKey(key)) {
                continue;
            }
            JsonNode found = versions.get(key);
            if (found == null) {
                found = get("/subjects/" + segment(subject) + "/versions/" + reference.path("version").asText(),
                        false);
                versions.putIfAbsent(key, found);
            }
            trail.add(key);
            references(found, ordered, trail);
            trail.remove(trail.size() - 1);
            ordered.put(key, found.path("schema").asText());
        }
    }

    /** The JSON answer of the first URL that gives a non-5xx reply, as the Python transport does. */
    private JsonNode get(String path, boolean writerLookup) throws WriterNotFound {
        String lastFailure = null;
        for (int round = 0; round <= retries; round++) {
            if (round > 0) {
                sleep(round - 1);
            }
            int start = preferred;
            for (int offset = 0; offset < urls.size(); offset++) {
                int index = (start + offset) % urls.size();
                Reply reply;
                try {
                    reply = fetch(urls.get(index) + path);
                } catch (IOException e) {
                    lastFailure = "RegistryUnavailable: GET " + urls.get(index) + path + ": " + e;
                    continue;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while asking the registry for " + path, e);
                }
                if (reply.status >= 500) {
                    lastFailure = "RegistryServerError: " + errorText(reply);
                    continue;
                }
                preferred = index;
                if (reply.status >= 400) {
                    JsonNode body = parse(reply.body);
                    if (writerLookup && body != null && body.path("error_code").asInt() == 40403) {
                        throw new WriterNotFound("SchemaNotFound: " + errorText(reply));
                    }
                    throw new IllegalStateException("the registry refused GET " + path + ": " + errorText(reply));
                }
                JsonNode body = parse(reply.body);
                if (body == null) {
                    throw new IllegalStateException("the registry's answer to GET " + path + " is not JSON");
                }
                return body;
            }
        }
        throw new IllegalStateException(lastFailure);
    }

    private HttpRequest request(String url) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET()
                .header("Accept", ACCEPT).header("User-Agent", "sqlregistry-pipeline-jvm/0.1");
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        return builder.build();
    }

    private void sleep(int round) {
        double ceiling = Math.min(backoffMax, backoff * Math.pow(2, round));
        long millis = (long) (1000 * (ceiling / 2 + ThreadLocalRandom.current().nextDouble() * ceiling / 2));
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted between registry retries", e);
        }
    }

    /** A reply: its status and its body, read up to the client's max_reply_bytes. */
    private static final class Reply {
        final int status;
        final String body;

        Reply(int status, String body) {
            this.status = status;
            this.body = body;
        }
    }

    /** GET `url`; a reply longer than the client's max_reply_bytes fails as a refused connection does (the next
     * URL is tried), as the Python transport's does, so a wrong or hostile peer cannot fill an
     * executor's memory. */
    private Reply fetch(String url) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = http.send(request(url), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = response.body()) {
            byte[] bytes = in.readNBytes(maxReplyBytes + 1);
            if (bytes.length > maxReplyBytes) {
                throw new IOException("the reply is longer than " + maxReplyBytes + " bytes");
            }
            return new Reply(response.statusCode(), new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /** The message as the Python client words it: "{message} (error_code N, HTTP S)". */
    private static String errorText(Reply reply) {
        JsonNode body = parse(reply.body);
        int status = reply.status;
        if (body != null && body.path("error_code").isInt()) {
            String message = body.path("message").asText("");
            return (message.isEmpty() ? reply.body : message) + " (error_code " + body.path("error_code").asInt()
                    + ", HTTP " + status + ")";
        }
        String text = reply.body.isEmpty() ? "HTTP " + status : reply.body;
        return text + " (error_code " + status + ", HTTP " + status + ")";
    }

    private static JsonNode parse(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }

    /** A path segment percent-encoded as Python's quote(text, safe="") does. */
    private static String segment(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "_.-~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append(String.format("%%%02X", b & 0xff));
            }
        }
        return out.toString();
    }
}
