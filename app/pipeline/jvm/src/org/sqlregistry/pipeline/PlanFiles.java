package org.sqlregistry.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.spark.SparkFiles;

/**
 * Reading a plan file as app/pipeline/jvm_plans.py ships it, for the decoder and the encoder
 * alike: both plans carry bytes as hex and a schema as its references' texts then its own.
 */
final class PlanFiles {
    private PlanFiles() {
    }

    /** The plan the driver added under `planName` (SparkContext.addFile) on this executor. */
    static JsonNode read(String planName, String kind) {
        String path = SparkFiles.get(planName);
        try {
            return new ObjectMapper().readTree(Files.readAllBytes(Paths.get(path)));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the " + kind + " plan " + path + ": " + e, e);
        }
    }

    /** The texts of a schema's references, then its own: one parser, so names carry over. */
    static Schema schema(List<String> texts) {
        Schema.Parser parser = new Schema.Parser();
        Schema last = null;
        for (String text : texts) {
            last = parser.parse(text);
        }
        return last;
    }

    /** The same, from a plan's JSON array of texts. */
    static Schema schema(JsonNode texts) {
        List<String> all = new ArrayList<>();
        texts.forEach(text -> all.add(text.asText()));
        return schema(all);
    }

    static byte[] bytes(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static String hex(byte[] bytes, int from, int to) {
        StringBuilder out = new StringBuilder();
        for (int i = from; i < to; i++) {
            out.append(String.format("%02x", bytes[i]));
        }
        return out.toString();
    }
}
