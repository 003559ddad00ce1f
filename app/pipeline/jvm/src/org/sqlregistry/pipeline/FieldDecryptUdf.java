package org.sqlregistry.pipeline;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF2;

/**
 * Spark SQL function: (struct of a record's ENCRYPT'd field values as stored, plan file name)
 * -> struct(the same fields in clear, error), as the Python workers' decryption returns it.
 *
 * The plan travels as an owner-only file added with SparkContext.addFile, as the decoder's does,
 * and is read once per executor JVM. Per ENCRYPT rule, in the order READ runs them: the raw AES
 * keys of its DEK versions (found on the driver by the client's own code), whether a version
 * leads the ciphertext, and what a value that does not decrypt does: nothing ("fail" null: the
 * rule's values stay as stored, onFailure NONE) or fail the record with the client's words, one
 * text per reason, probed on the driver through the client. Per field: its rule, bytes or string.
 * A value decrypts as the client's ENCRYPT executor decrypts it on READ: Tink's RAW AES-GCM
 * layout (12-byte IV, ciphertext, 16-byte tag, no associated data), led by a byte the client
 * skips and the DEK version (4 bytes, big-endian; 0 reads version 1) when DEKs rotate; a string
 * field's text must be padded base64 and its clear bytes UTF-8.
 */
public final class FieldDecryptUdf implements UDF2<Row, String, Row> {
    private static final long serialVersionUID = 1L;
    private static final ConcurrentHashMap<String, Plan> PLANS = new ConcurrentHashMap<>();
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final int VERSION_PREFIX = 5;
    private static final long MAX_VERSION = Integer.MAX_VALUE;

    /** How a value fails, as the client's fixed texts name it (no_dek: with the version). */
    private enum Fault { NOT_BASE64, NO_VERSION, NO_DEK, UNDECRYPTABLE, NOT_UTF8 }

    /** One rule: its keys and, unless onFailure is NONE, its record errors. */
    private static final class RulePlan {
        final boolean versioned;
        final Map<Long, SecretKeySpec> keys = new HashMap<>();
        final Map<Fault, String> errors = new EnumMap<>(Fault.class);
        final List<List<String>> noDek = new ArrayList<>();  // the text around the version, per range
        final boolean keeps;
        int[] fields;

        RulePlan(JsonNode rule) {
            versioned = rule.get("versioned").asBoolean();
            for (Map.Entry<String, JsonNode> entry : rule.get("keys").properties()) {
                keys.put(Long.valueOf(entry.getKey()),
                        new SecretKeySpec(PlanFiles.bytes(entry.getValue().asText()), "AES"));
            }
            JsonNode fail = rule.get("fail");
            keeps = fail == null || fail.isNull();
            if (!keeps) {
                errors.put(Fault.NOT_BASE64, fail.get("not_base64").asText());
                errors.put(Fault.NO_VERSION, fail.get("no_version").asText());
                errors.put(Fault.UNDECRYPTABLE, fail.get("undecryptable").asText());
                errors.put(Fault.NOT_UTF8, fail.get("not_utf8").asText());
                JsonNode ranges = fail.get("no_dek");
                if (ranges != null) {
                    for (JsonNode parts : ranges) {
                        List<String> texts = new ArrayList<>();
                        parts.forEach(part -> texts.add(part.asText()));
                        noDek.add(texts);
                    }
                }
            }
        }

        String error(Fault fault, long version) {
            if (fault != Fault.NO_DEK) {
                return errors.get(fault);
            }
            return String.join(Long.toString(version), noDek.get(version > MAX_VERSION ? 1 : 0));
        }
    }

    private static final class Plan {
        final RulePlan[] rules;
        final int[] ruleOf;
        final boolean[] binary;
        final ThreadLocal<Map<Long, Cipher>> ciphers = ThreadLocal.withInitial(HashMap::new);
        final ThreadLocal<CharsetDecoder> utf8 = ThreadLocal.withInitial(StandardCharsets.UTF_8::newDecoder);
        final ThreadLocal<Opened> opened = ThreadLocal.withInitial(Opened::new);

        Plan(JsonNode plan) {
            JsonNode ruleNodes = plan.get("rules");
            rules = new RulePlan[ruleNodes.size()];
            for (int r = 0; r < rules.length; r++) {
                rules[r] = new RulePlan(ruleNodes.get(r));
            }
            JsonNode fields = plan.get("fields");
            ruleOf = new int[fields.size()];
            binary = new boolean[fields.size()];
            List<List<Integer>> byRule = new ArrayList<>();
            for (int r = 0; r < rules.length; r++) {
                byRule.add(new ArrayList<>());
            }
            for (int f = 0; f < fields.size(); f++) {
                ruleOf[f] = fields.get(f).get("rule").asInt();
                binary[f] = fields.get(f).get("binary").asBoolean();
                byRule.get(ruleOf[f]).add(f);
            }
            for (int r = 0; r < rules.length; r++) {
                rules[r].fields = byRule.get(r).stream().mapToInt(Integer::intValue).toArray();
            }
        }

        Row decrypt(Row stored) {
            Object[] out = new Object[binary.length + 1];
            Opened result = opened.get();
            for (int r = 0; r < rules.length; r++) {
                RulePlan rule = rules[r];
                Fault fault = null;
                // As the client's field walker: the rule's fields in order, stopping at the first fault.
                for (int f : rule.fields) {
                    Object value = stored.get(f);
                    if (value == null) {
                        continue;
                    }
                    fault = open(r, f, value, result);
                    if (fault != null) {
                        break;
                    }
                    out[f] = result.clear;
                }
                if (fault == null) {
                    continue;
                }
                if (rule.keeps) {
                    for (int f : rule.fields) {
                        out[f] = stored.get(f);
                    }
                    continue;
                }
                Object[] failed = new Object[binary.length + 1];
                failed[binary.length] = rule.error(fault, result.version);
                return RowFactory.create(failed);
            }
            return RowFactory.create(out);
        }

        /** Null with `result.clear` set when the value decrypts, else why not. */
        private Fault open(int r, int f, Object value, Opened result) {
            byte[] data;
            if (binary[f]) {
                data = (byte[]) value;
            } else {
                data = unbase64((String) value);
                if (data == null) {
                    return Fault.NOT_BASE64;
                }
            }
            RulePlan rule = rules[r];
            int from = 0;
            long version = 1;
            if (rule.versioned) {
                if (data.length < VERSION_PREFIX) {
                    return Fault.NO_VERSION;
                }
                version = ByteBuffer.wrap(data, 1, 4).getInt() & 0xffffffffL;
                if (version == 0) {
                    version = 1;  // as the client: version 0 reads the first DEK
                }
                from = VERSION_PREFIX;
            }
            result.version = version;
            SecretKeySpec key = rule.keys.get(version);
            if (key == null) {
                return Fault.NO_DEK;
            }
            if (data.length - from < IV_BYTES + TAG_BITS / 8) {
                return Fault.UNDECRYPTABLE;
            }
            byte[] plain;
            try {
                Cipher cipher = cipher(r, version);
                cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, data, from, IV_BYTES));
                plain = cipher.doFinal(data, from + IV_BYTES, data.length - from - IV_BYTES);
            } catch (GeneralSecurityException e) {
                return Fault.UNDECRYPTABLE;
            }
            if (binary[f]) {
                result.clear = plain;
                return null;
            }
            try {
                result.clear = utf8.get().decode(ByteBuffer.wrap(plain)).toString();
            } catch (CharacterCodingException e) {
                return Fault.NOT_UTF8;
            }
            return null;
        }

        /** The ciphertext behind padded base64 text (as Python's b64decode(validate=True)), or null. */
        private static byte[] unbase64(String text) {
            if (text.length() % 4 != 0) {
                return null;
            }
            try {
                return Base64.getDecoder().decode(text);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }

        /** This thread's cipher for one rule's DEK version: made once, initialised per value. */
        private Cipher cipher(int rule, long version) throws GeneralSecurityException {
            Map<Long, Cipher> mine = ciphers.get();
            long slot = ((long) rule << 32) | version;
            Cipher found = mine.get(slot);
            if (found == null) {
                found = Cipher.getInstance("AES/GCM/NoPadding");
                mine.put(slot, found);
            }
            return found;
        }
    }

    /** One value's outcome, reused by a thread: its clear value, and the DEK version read. */
    private static final class Opened {
        Object clear;
        long version;
    }

    @Override
    public Row call(Row stored, String planName) {
        if (stored == null) {
            return null;
        }
        return PLANS.computeIfAbsent(planName, name -> new Plan(PlanFiles.read(name, "decrypt"))).decrypt(stored);
    }
}
