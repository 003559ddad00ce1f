package org.sqlregistry.pipeline;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Everything one decode call needs on an executor: the framing, the reader schema and, per
 * header seen on the driver, the writer schema (or why it has none). Schemas come with their
 * references' texts, parsed first into the same names, as the registry's clients do.
 * A stream's plan names no headers (the driver cannot see them ahead) but the registry: its
 * writers are fetched here, once per JVM (RegistryWriters).
 * Shared by every task thread of an executor; each thread keeps its own readers and decoder
 * buffer (ThreadLocal), since Avro's readers and decoders are not safe to share.
 */
final class DecodePlan {
    static final class Result {
        final Object value;
        final String error;

        Result(Object value, String error) {
            this.value = value;
            this.error = error;
        }
    }

    private final int headerSize;
    private final byte[] marker;
    private final String framingName;
    private final Schema reader;
    private final SparkValues.Converter convert;
    private final Map<ByteBuffer, Schema> writers = new HashMap<>();
    private final Map<ByteBuffer, String> failures = new HashMap<>();
    private final RegistryWriters registry;
    private final Map<ByteBuffer, Schema> fetched = new ConcurrentHashMap<>();
    private final ThreadLocal<State> state = ThreadLocal.withInitial(State::new);

    private final class State {
        final Map<ByteBuffer, Object> readers = new HashMap<>();
        byte[] lastHeader;
        Object lastReader;
        BinaryDecoder decoder;
    }

    DecodePlan(JsonNode plan) {
        headerSize = plan.get("header_size").asInt();
        marker = PlanFiles.bytes(plan.get("marker").asText());
        framingName = plan.get("framing").asText();
        reader = PlanFiles.schema(plan.get("reader"));
        convert = SparkValues.converter(reader);
        for (Map.Entry<String, JsonNode> entry : plan.get("writers").properties()) {
            writers.put(ByteBuffer.wrap(PlanFiles.bytes(entry.getKey())), PlanFiles.schema(entry.getValue()));
        }
        for (Map.Entry<String, JsonNode> entry : plan.get("failures").properties()) {
            failures.put(ByteBuffer.wrap(PlanFiles.bytes(entry.getKey())), entry.getValue().asText());
        }
        JsonNode source = plan.get("registry");
        registry = source == null || source.isNull() ? null : RegistryWriters.of(source, marker.length > 1);
    }

    Result decode(byte[] data) {
        State local = state.get();
        Object found;
        if (local.lastHeader != null && data.length >= headerSize && sameHeader(local.lastHeader, data)) {
            found = local.lastReader;
        } else {
            if (data.length < headerSize) {
                return new Result(null, "SerializationError: " + data.length + " bytes are too short for "
                        + framingName);
            }
            if (!startsWithMarker(data)) {
                return new Result(null, "SerializationError: " + wrongMarker(data));
            }
            ByteBuffer header = ByteBuffer.wrap(java.util.Arrays.copyOf(data, headerSize));
            found = local.readers.get(header);
            if (found == null) {
                found = readerFor(header);
                if (found instanceof RegistryWriters.WriterNotFound) {
                    // Not kept here: the registry is asked again once its answer is a minute old.
                    return new Result(null, ((RegistryWriters.WriterNotFound) found).getMessage());
                }
                local.readers.put(header, found);
            }
            local.lastHeader = header.array();
            local.lastReader = found;
        }
        if (found instanceof String) {
            return new Result(null, (String) found);
        }
        @SuppressWarnings("unchecked")
        GenericDatumReader<Object> datumReader = (GenericDatumReader<Object>) found;
        try {
            local.decoder = DecoderFactory.get().binaryDecoder(data, headerSize, data.length - headerSize,
                    local.decoder);
            return new Result(convert.apply(datumReader.read(null, local.decoder)), null);
        } catch (Exception | StackOverflowError e) {
            return new Result(null, "SerializationError: cannot decode " + data.length + " bytes: "
                    + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** A reader for this header's writer, or the reason (a String, or the registry's
     * WriterNotFound for a fetched one) why there is none. */
    private Object readerFor(ByteBuffer header) {
        String failure = failures.get(header);
        if (failure != null) {
            return failure;
        }
        Schema writer = writers.get(header);
        if (writer == null && registry != null) {
            writer = fetched.get(header);
            if (writer == null) {
                try {
                    writer = PlanFiles.schema(registry.writerTexts(header));
                    fetched.putIfAbsent(header, writer);
                } catch (RegistryWriters.WriterNotFound e) {
                    return e;
                }
            }
        }
        if (writer == null) {
            return "SchemaNotFound: the writer of header " + PlanFiles.hex(header.array(), 0, headerSize)
                    + " was not in the data when the decode was planned";
        }
        // No compatibility check up front: Avro resolves each record as it reads it, so a writer
        // union member the reader lacks fails only the records written with it, as in fastavro.
        return new GenericDatumReader<Object>(writer, reader);
    }

    private boolean sameHeader(byte[] header, byte[] data) {
        for (int i = 0; i < headerSize; i++) {
            if (header[i] != data[i]) {
                return false;
            }
        }
        return true;
    }

    private boolean startsWithMarker(byte[] data) {
        for (int i = 0; i < marker.length; i++) {
            if (data[i] != marker[i]) {
                return false;
            }
        }
        return true;
    }

    private String wrongMarker(byte[] data) {
        if (marker.length == 1) {
            return String.format("unknown magic byte 0x%02x; Confluent framing starts with 0x%02x", data[0], marker[0]);
        }
        return "unknown marker " + PlanFiles.hex(data, 0, marker.length)
                + "; Avro single-object encoding starts with " + PlanFiles.hex(marker, 0, marker.length);
    }
}
