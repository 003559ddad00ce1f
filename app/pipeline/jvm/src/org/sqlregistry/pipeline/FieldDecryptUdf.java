package org.sqlregistry.pipeline;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.HashMap;
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
 * -> struct of the same fields in clear, or null when any of them does not decrypt here.
 *
 * The plan (per ENCRYPT rule: the raw AES keys of its DEK versions, resolved on the driver by the
 * client's own code, and whether a version leads the ciphertext; per field: its rule and whether
 * it is bytes or a string holding base64) travels as an owner-only file added with
 * SparkContext.addFile, as the decoder's does, and is read once per executor JVM.
 * A value decrypts as the client's ENCRYPT executor decrypts it on READ: Tink's RAW AES-GCM
 * layout (12-byte IV, ciphertext, 16-byte tag, no associated data), led by a zero byte and the
 * DEK version (4 bytes, big-endian) when DEKs rotate; a string field's text must be padded
 * base64 and its clear bytes UTF-8.
 * This side only ever says yes or "not here": a null result (not base64, too short, a DEK
 * version the plan lacks, a failed tag, not UTF-8) sends the record's values to the Python
 * workers, where the client's RuleRunner decides by the rule's onFailure action and words the
 * reason, so every outcome but a clean decryption is the client's own.
 */
public final class FieldDecryptUdf implements UDF2<Row, String, Row> {
    private static final long serialVersionUID = 1L;
    private static final ConcurrentHashMap<String, Plan> PLANS = new ConcurrentHashMap<>();
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final int VERSION_PREFIX = 5;

    private static final class Plan {
        final boolean[] versioned;
        final Map<Integer, SecretKeySpec>[] keys;
        final int[] ruleOf;
        final boolean[] binary;
        final ThreadLocal<Map<Long, Cipher>> ciphers = ThreadLocal.withInitial(HashMap::new);
        final ThreadLocal<CharsetDecoder> utf8 = ThreadLocal.withInitial(StandardCharsets.UTF_8::newDecoder);

        @SuppressWarnings("unchecked")
        Plan(JsonNode plan) {
            JsonNode rules = plan.get("rules");
            versioned = new boolean[rules.size()];
            keys = new Map[rules.size()];
            for (int r = 0; r < rules.size(); r++) {
                JsonNode rule = rules.get(r);
                versioned[r] = rule.get("versioned").asBoolean();
                keys[r] = new HashMap<>();
                for (Map.Entry<String, JsonNode> entry : rule.get("keys").properties()) {
                    keys[r].put(Integer.valueOf(entry.getKey()),
                            new SecretKeySpec(PlanFiles.bytes(entry.getValue().asText()), "AES"));
                }
            }
            JsonNode fields = plan.get("fields");
            ruleOf = new int[fields.size()];
            binary = new boolean[fields.size()];
            for (int f = 0; f < fields.size(); f++) {
                ruleOf[f] = fields.get(f).get("rule").asInt();
                binary[f] = fields.get(f).get("binary").asBoolean();
            }
        }

        Row decrypt(Row stored) {
            Object[] clear = new Object[binary.length];
            for (int f = 0; f < binary.length; f++) {
                Object value = stored.get(f);
                if (value == null) {
                    continue;
                }
                byte[] data = binary[f] ? (byte[]) value : unbase64((String) value);
                byte[] plain = data == null ? null : open(ruleOf[f], data);
                if (plain == null) {
                    return null;
                }
                if (binary[f]) {
                    clear[f] = plain;
                } else {
                    String text = utf8(plain);
                    if (text == null) {
                        return null;
                    }
                    clear[f] = text;
                }
            }
            return RowFactory.create(clear);
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

        private String utf8(byte[] plain) {
            try {
                return utf8.get().decode(ByteBuffer.wrap(plain)).toString();
            } catch (CharacterCodingException e) {
                return null;
            }
        }

        private byte[] open(int rule, byte[] data) {
            int from = 0;
            int version = 1;
            if (versioned[rule]) {
                if (data.length < VERSION_PREFIX) {
                    return null;
                }
                version = ByteBuffer.wrap(data, 1, 4).getInt();  // the client reads bytes 1-4, as here
                from = VERSION_PREFIX;
            }
            SecretKeySpec key = keys[rule].get(version);
            if (key == null || data.length - from < IV_BYTES + TAG_BITS / 8) {
                return null;
            }
            try {
                Cipher cipher = cipher(rule, version);
                cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, data, from, IV_BYTES));
                return cipher.doFinal(data, from + IV_BYTES, data.length - from - IV_BYTES);
            } catch (GeneralSecurityException e) {
                return null;
            }
        }

        /** This thread's cipher for one rule's DEK version: made once, initialised per value. */
        private Cipher cipher(int rule, int version) throws GeneralSecurityException {
            Map<Long, Cipher> mine = ciphers.get();
            long slot = ((long) rule << 32) | (version & 0xffffffffL);
            Cipher found = mine.get(slot);
            if (found == null) {
                found = Cipher.getInstance("AES/GCM/NoPadding");
                mine.put(slot, found);
            }
            return found;
        }
    }

    @Override
    public Row call(Row stored, String planName) {
        if (stored == null) {
            return null;
        }
        return PLANS.computeIfAbsent(planName, name -> new Plan(PlanFiles.read(name, "decrypt"))).decrypt(stored);
    }
}
