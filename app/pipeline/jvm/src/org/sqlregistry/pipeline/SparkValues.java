package org.sqlregistry.pipeline;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.spark.sql.RowFactory;

/**
 * Values as Avro's generic reader returns them (already resolved onto the reader schema) ->
 * the external values Spark builds its column from, as app/pipeline/types.py maps the reader:
 * records -> Row, enums and strings -> String, bytes/fixed -> byte[], [null, T] -> T,
 * [int, long] -> long, [float, double] -> double, other unions -> Row of member0.. with the
 * member Avro's own resolveUnion picks (as Spark's Avro reader does), logical types to Spark's.
 * One converter tree per reader schema, built once, so no per-record schema walk.
 */
final class SparkValues {
    interface Converter {
        Object apply(Object value);
    }

    private static final Converter SAME = value -> value;

    private SparkValues() {
    }

    static Converter converter(Schema reader) {
        return new SparkValues().of(reader);
    }

    private Converter of(Schema schema) {
        Converter logical = logical(schema);
        if (logical != null) {
            return logical;
        }
        switch (schema.getType()) {
            case RECORD:
                return record(schema);
            case ENUM:
            case STRING:
                return value -> value == null ? null : value.toString();
            case BYTES:
                return value -> value == null ? null : bytes((ByteBuffer) value);
            case FIXED:
                return value -> value == null ? null : ((GenericFixed) value).bytes();
            case ARRAY: {
                Converter item = of(schema.getElementType());
                return value -> {
                    if (value == null) {
                        return null;
                    }
                    List<?> items = (List<?>) value;
                    List<Object> out = new ArrayList<>(items.size());
                    for (Object each : items) {
                        out.add(item.apply(each));
                    }
                    return out;
                };
            }
            case MAP: {
                Converter entry = of(schema.getValueType());
                return value -> {
                    if (value == null) {
                        return null;
                    }
                    Map<?, ?> entries = (Map<?, ?>) value;
                    Map<String, Object> out = new HashMap<>(entries.size() * 2);
                    for (Map.Entry<?, ?> each : entries.entrySet()) {
                        out.put(each.getKey().toString(), entry.apply(each.getValue()));
                    }
                    return out;
                };
            }
            case UNION:
                return union(schema);
            default:
                return SAME;
        }
    }

    private Converter record(Schema schema) {
        List<Schema.Field> fields = schema.getFields();
        Converter[] converters = new Converter[fields.size()];
        for (int i = 0; i < converters.length; i++) {
            converters[i] = of(fields.get(i).schema());
        }
        return value -> {
            if (value == null) {
                return null;
            }
            IndexedRecord record = (IndexedRecord) value;
            Object[] out = new Object[converters.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = converters[i].apply(record.get(i));
            }
            return RowFactory.create(out);
        };
    }

    private Converter union(Schema schema) {
        List<Schema> members = new ArrayList<>();
        for (Schema member : schema.getTypes()) {
            if (member.getType() != Schema.Type.NULL) {
                members.add(member);
            }
        }
        if (members.size() == 1) {
            return of(members.get(0));
        }
        java.util.Set<Schema.Type> kinds = java.util.EnumSet.noneOf(Schema.Type.class);
        for (Schema member : members) {
            kinds.add(member.getType());
        }
        if (kinds.equals(java.util.EnumSet.of(Schema.Type.INT, Schema.Type.LONG))) {
            return value -> value == null ? null : ((Number) value).longValue();
        }
        if (kinds.equals(java.util.EnumSet.of(Schema.Type.FLOAT, Schema.Type.DOUBLE))) {
            return value -> value == null ? null : ((Number) value).doubleValue();
        }
        // Index of each union member (null included, as resolveUnion counts) among the non-null ones.
        int[] position = new int[schema.getTypes().size()];
        Converter[] converters = new Converter[position.length];
        int next = 0;
        for (int i = 0; i < position.length; i++) {
            Schema member = schema.getTypes().get(i);
            position[i] = member.getType() == Schema.Type.NULL ? -1 : next++;
            converters[i] = member.getType() == Schema.Type.NULL ? SAME : of(member);
        }
        int width = next;
        return value -> {
            if (value == null) {
                return null;
            }
            int index = GenericData.get().resolveUnion(schema, value);
            Object[] out = new Object[width];
            out[position[index]] = converters[index].apply(value);
            return RowFactory.create(out);
        };
    }

    /** Spark's value for a logical type, or null where Avro says to ignore it (an invalid one). */
    private static Converter logical(Schema schema) {
        LogicalType logical = schema.getLogicalType();
        String name = logical != null ? logical.getName() : schema.getProp("logicalType");
        if (name == null) {
            return null;
        }
        Schema.Type type = schema.getType();
        switch (name) {
            case "date":
                return type == Schema.Type.INT ? value -> value == null ? null
                        : LocalDate.ofEpochDay((Integer) value) : null;
            case "timestamp-millis":
                return type == Schema.Type.LONG ? value -> value == null ? null
                        : Instant.ofEpochMilli((Long) value) : null;
            case "timestamp-micros":
                return type == Schema.Type.LONG ? value -> value == null ? null : micros((Long) value) : null;
            case "local-timestamp-millis":
                return type == Schema.Type.LONG ? value -> value == null ? null
                        : LocalDateTime.ofInstant(Instant.ofEpochMilli((Long) value), ZoneOffset.UTC) : null;
            case "local-timestamp-micros":
                return type == Schema.Type.LONG ? value -> value == null ? null
                        : LocalDateTime.ofInstant(micros((Long) value), ZoneOffset.UTC) : null;
            case "decimal":
                return decimal(schema);
            default:
                return null;
        }
    }

    private static Converter decimal(Schema schema) {
        if (!(schema.getLogicalType() instanceof LogicalTypes.Decimal)) {
            return null;
        }
        LogicalTypes.Decimal decimal = (LogicalTypes.Decimal) schema.getLogicalType();
        int scale = decimal.getScale();
        if (decimal.getPrecision() <= 0 || decimal.getPrecision() > 38 || scale < 0 || scale > decimal.getPrecision()) {
            return null;
        }
        if (schema.getType() == Schema.Type.BYTES) {
            return value -> value == null ? null : new BigDecimal(new BigInteger(bytes((ByteBuffer) value)), scale);
        }
        if (schema.getType() == Schema.Type.FIXED) {
            return value -> value == null ? null
                    : new BigDecimal(new BigInteger(((GenericFixed) value).bytes()), scale);
        }
        return null;
    }

    private static Instant micros(long value) {
        return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1_000L);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
