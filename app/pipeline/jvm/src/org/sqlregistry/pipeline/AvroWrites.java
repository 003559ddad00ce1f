package org.sqlregistry.pipeline;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.Encoder;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;

/**
 * Spark values -> Avro binary, byte for byte as the Python path's AvroSerializer (fastavro's
 * schemaless_writer) writes the same rows. So the rules are fastavro's, not Avro Java's: a union
 * takes the first member that accepts the value as Python would see it (int for every integral
 * column, float for float columns, ...), preferring a later double to a float, and among record
 * members the one sharing most field names; a field without a column takes its default (or
 * null in a union with null); logical types are prepared as fastavro's logical writers do
 * (decimals keep fastavro's byte length). One writer tree per (Avro schema, Spark type), built
 * once per plan. Maps arrive as arrays of (key, value) rows (see app/pipeline/jvm_encode.py),
 * so their order is the column's.
 */
final class AvroWrites {
    interface Writer {
        void write(Object value, Encoder out) throws IOException;
    }

    /** Whether a union member takes a value (fastavro's validate, on Spark's value). */
    interface Accepts {
        boolean test(Object value);
    }

    private static final ZoneId LOCAL = ZoneId.systemDefault();

    private AvroWrites() {
    }

    static Writer writer(Schema schema, DataType type) {
        switch (schema.getType()) {
            case RECORD:
                return record(schema, type);
            case UNION:
                return union(schema, type);
            case NULL:
                return (value, out) -> out.writeNull();
            case BOOLEAN:
                return (value, out) -> out.writeBoolean((Boolean) present(value, schema));
            case INT:
            case LONG: {
                // fastavro writes an int as the same varint as a long: no narrowing.
                Prepare prepare = logical(schema);
                return (value, out) -> out.writeLong(integral(prepare.apply(present(value, schema))));
            }
            case FLOAT:
                return (value, out) -> out.writeFloat(asFloat(present(value, schema)));
            case DOUBLE:
                return (value, out) -> out.writeDouble(asDouble(present(value, schema)));
            case STRING:
                return (value, out) -> out.writeString((String) present(value, schema));
            case BYTES: {
                Prepare prepare = logical(schema);
                return (value, out) -> out.writeBytes((byte[]) prepare.apply(present(value, schema)));
            }
            case FIXED: {
                Prepare prepare = logical(schema);
                return (value, out) -> out.writeFixed((byte[]) prepare.apply(present(value, schema)));
            }
            case ENUM:
                return (value, out) -> {
                    Object symbol = present(value, schema);
                    if (!(symbol instanceof String) || !schema.hasEnumSymbol((String) symbol)) {
                        throw new IllegalArgumentException(value + " is not a symbol of " + schema.getFullName());
                    }
                    out.writeEnum(schema.getEnumOrdinal((String) symbol));
                };
            case ARRAY: {
                DataType element = type instanceof ArrayType ? ((ArrayType) type).elementType() : type;
                Writer item = writer(schema.getElementType(), element);
                return (value, out) -> items(present(value, schema), item, out);
            }
            case MAP:
                return map(schema, type);
            default:
                throw new IllegalArgumentException("cannot write Avro type " + schema.getType());
        }
    }

    private static Writer record(Schema schema, DataType type) {
        if (!(type instanceof StructType)) {
            return (value, out) -> {
                throw new IllegalArgumentException(schema.getFullName() + " needs a struct, not " + type.simpleString());
            };
        }
        StructType struct = (StructType) type;
        List<Schema.Field> fields = schema.getFields();
        Writer[] writers = new Writer[fields.size()];
        int[] columns = new int[fields.size()];
        for (int i = 0; i < writers.length; i++) {
            Schema.Field field = fields.get(i);
            int column = struct.getFieldIndex(field.name()).getOrElse(() -> -1);
            columns[i] = column;
            writers[i] = column >= 0 ? writer(field.schema(), struct.fields()[column].dataType()) : absent(field, schema);
        }
        return (value, out) -> {
            Row row = (Row) present(value, schema);
            for (int i = 0; i < writers.length; i++) {
                writers[i].write(columns[i] >= 0 ? row.get(columns[i]) : null, out);
            }
        };
    }

    /** A field the struct has no column for: its default, as Avro encodes it, or null. */
    private static Writer absent(Schema.Field field, Schema record) {
        if (field.hasDefaultValue()) {
            Object fallback = GenericData.get().getDefaultValue(field);
            GenericDatumWriter<Object> datum = new GenericDatumWriter<>(field.schema());
            return (value, out) -> datum.write(fallback, out);
        }
        int index = nullMember(field.schema());
        if (index >= 0) {
            return (value, out) -> out.writeIndex(index);
        }
        return (value, out) -> {
            throw new IllegalArgumentException("no value and no default for " + record.getFullName() + "."
                    + field.name());
        };
    }

    /** The index of a union's null member, or -1 (also for a schema that is no union). */
    private static int nullMember(Schema schema) {
        if (schema.getType() == Schema.Type.UNION) {
            List<Schema> members = schema.getTypes();
            for (int i = 0; i < members.size(); i++) {
                if (members.get(i).getType() == Schema.Type.NULL) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** Whether null is a value of the schema, as fastavro validates a field the row lacks. */
    private static boolean takesNull(Schema schema) {
        return schema.getType() == Schema.Type.NULL || nullMember(schema) >= 0;
    }

    private static Writer union(Schema schema, DataType type) {
        List<Schema> members = schema.getTypes();
        Writer[] writers = new Writer[members.size()];
        Accepts[] accepts = new Accepts[members.size()];
        int[] shared = new int[members.size()];
        for (int i = 0; i < writers.length; i++) {
            writers[i] = writer(members.get(i), type);
            accepts[i] = accepts(members.get(i), type);
            shared[i] = members.get(i).getType() == Schema.Type.RECORD ? sharedFields(members.get(i), type) : -1;
        }
        return (value, out) -> {
            int best = -1;
            int mostFields = -1;
            boolean couldBeFloat = false;
            for (int i = 0; i < writers.length; i++) {
                Schema.Type kind = members.get(i).getType();
                if (couldBeFloat) {
                    if (kind == Schema.Type.DOUBLE) {
                        best = i;
                        break;
                    }
                    continue;
                }
                if (!accepts[i].test(value)) {
                    continue;
                }
                if (kind == Schema.Type.RECORD) {
                    if (shared[i] > mostFields) {
                        best = i;
                        mostFields = shared[i];
                    }
                } else if (kind == Schema.Type.FLOAT) {
                    best = i;
                    couldBeFloat = true;
                } else {
                    best = i;
                    break;
                }
            }
            if (best < 0) {
                throw new IllegalArgumentException(value + " (" + type.simpleString() + ") matches no member of "
                        + schema);
            }
            out.writeIndex(best);
            writers[best].write(value, out);
        };
    }

    private static int sharedFields(Schema record, DataType type) {
        if (!(type instanceof StructType)) {
            return 0;
        }
        int count = 0;
        for (Schema.Field field : record.getFields()) {
            if (((StructType) type).getFieldIndex(field.name()).isDefined()) {
                count++;
            }
        }
        return count;
    }

    private static Accepts accepts(Schema schema, DataType type) {
        Prepare prepare = logical(schema);
        switch (schema.getType()) {
            case NULL:
                return value -> value == null;
            case BOOLEAN:
                return value -> value instanceof Boolean;
            case INT:
                return value -> {
                    Object prepared = prepare.apply(value);
                    return isIntegral(prepared) && integral(prepared) == (int) integral(prepared);
                };
            case LONG:
                return value -> isIntegral(prepare.apply(value));
            case FLOAT:
            case DOUBLE:
                return value -> isIntegral(value) || value instanceof Float || value instanceof Double;
            case STRING:
                return value -> value instanceof String;
            case BYTES:
                return value -> prepare.apply(value) instanceof byte[];
            case FIXED:
                return value -> {
                    Object prepared = prepare.apply(value);
                    return prepared instanceof byte[] && ((byte[]) prepared).length == schema.getFixedSize();
                };
            case ENUM:
                return value -> value instanceof String && schema.hasEnumSymbol((String) value);
            case ARRAY: {
                Accepts item = accepts(schema.getElementType(),
                        type instanceof ArrayType ? ((ArrayType) type).elementType() : type);
                return value -> type instanceof ArrayType && value != null && all(list(value), item);
            }
            case MAP: {
                if (!(type instanceof MapType) || !(((MapType) type).keyType() instanceof StringType)) {
                    return value -> false;
                }
                Accepts entry = accepts(schema.getValueType(), ((MapType) type).valueType());
                return value -> {
                    if (value == null) {
                        return false;
                    }
                    for (Object pair : list(value)) {
                        if (!entry.test(((Row) pair).get(1))) {
                            return false;
                        }
                    }
                    return true;
                };
            }
            case RECORD:
                return record(schema, type, value -> false);
            case UNION: {
                List<Accepts> members = new ArrayList<>();
                for (Schema member : schema.getTypes()) {
                    members.add(accepts(member, type));
                }
                return value -> members.stream().anyMatch(member -> member.test(value));
            }
            default:
                return value -> false;
        }
    }

    /** A struct value whose columns (or defaults, or nulls for absent fields) all fit the record. */
    private static Accepts record(Schema schema, DataType type, Accepts otherwise) {
        if (!(type instanceof StructType)) {
            return otherwise;
        }
        StructType struct = (StructType) type;
        List<Accepts> checks = new ArrayList<>();
        List<Integer> columns = new ArrayList<>();
        for (Schema.Field field : schema.getFields()) {
            int column = struct.getFieldIndex(field.name()).getOrElse(() -> -1);
            if (column >= 0) {
                checks.add(accepts(field.schema(), struct.fields()[column].dataType()));
                columns.add(column);
            } else if (!field.hasDefaultValue() && !takesNull(field.schema())) {
                // Decided here, not per value: asking accepts() of the field's schema against this
                // same struct would recurse forever through a recursive record (a linked list).
                return value -> false;
            }
        }
        Accepts[] check = checks.toArray(new Accepts[0]);
        int[] column = columns.stream().mapToInt(Integer::intValue).toArray();
        return value -> {
            if (!(value instanceof Row)) {
                return false;
            }
            Row row = (Row) value;
            for (int i = 0; i < check.length; i++) {
                if (!check[i].test(row.get(column[i]))) {
                    return false;
                }
            }
            return true;
        };
    }

    private static Writer map(Schema schema, DataType type) {
        DataType values = type instanceof MapType ? ((MapType) type).valueType() : type;
        Writer entry = writer(schema.getValueType(), values);
        return (value, out) -> {
            List<Object> pairs = list(present(value, schema));
            if (!pairs.isEmpty()) {
                out.writeLong(pairs.size());
                for (Object pair : pairs) {
                    Row row = (Row) pair;
                    out.writeString((String) row.get(0));
                    entry.write(row.get(1), out);
                }
            }
            out.writeLong(0);
        };
    }

    private static void items(Object value, Writer item, Encoder out) throws IOException {
        List<Object> items = list(value);
        if (!items.isEmpty()) {
            out.writeLong(items.size());
            for (Object each : items) {
                item.write(each, out);
            }
        }
        out.writeLong(0);
    }

    interface Prepare {
        Object apply(Object value);
    }

    /** fastavro's logical writer for this schema: the value it writes in place of a Python one. */
    private static Prepare logical(Schema schema) {
        String name = schema.getProp("logicalType");
        if (name == null) {
            return value -> value;
        }
        switch (schema.getType().getName() + "-" + name) {
            case "int-date":
                return value -> value instanceof java.sql.Date ? (Object) ((java.sql.Date) value).toLocalDate().toEpochDay()
                        : value instanceof LocalDate ? (Object) ((LocalDate) value).toEpochDay()
                        : value instanceof String ? (Object) LocalDate.parse((String) value).toEpochDay() : value;
            case "long-timestamp-millis":
                return value -> value instanceof LocalDateTime ? (Object) Math.floorDiv(micros(
                        ((LocalDateTime) value).atZone(LOCAL).toInstant()), 1000L) : millis(value);
            case "long-timestamp-micros":
                return value -> value instanceof LocalDateTime
                        ? (Object) micros(((LocalDateTime) value).atZone(LOCAL).toInstant()) : instantMicros(value);
            case "long-local-timestamp-millis":
                return value -> value instanceof LocalDateTime ? (Object) Math.floorDiv(micros(
                        ((LocalDateTime) value).toInstant(ZoneOffset.UTC)), 1000L) : millis(value);
            case "long-local-timestamp-micros":
                return value -> value instanceof LocalDateTime
                        ? (Object) micros(((LocalDateTime) value).toInstant(ZoneOffset.UTC)) : instantMicros(value);
            case "bytes-decimal":
            case "fixed-decimal":
                return decimal(schema);
            default:
                return value -> value;
        }
    }

    private static Object millis(Object value) {
        Object micros = instantMicros(value);
        return micros instanceof Long ? (Object) Math.floorDiv((Long) micros, 1000L) : micros;
    }

    private static Object instantMicros(Object value) {
        if (value instanceof Timestamp) {
            return micros(((Timestamp) value).toInstant());
        }
        if (value instanceof Instant) {
            return micros((Instant) value);
        }
        return value;
    }

    private static long micros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    }

    /** fastavro's decimal bytes: checked against precision and scale, rescaled up, and for
     * `bytes` (bit length + 8) / 8 bytes long, for `fixed` the fixed size, two's complement. */
    private static Prepare decimal(Schema schema) {
        if (!(schema.getLogicalType() instanceof LogicalTypes.Decimal)) {
            return value -> value;
        }
        LogicalTypes.Decimal decimal = (LogicalTypes.Decimal) schema.getLogicalType();
        boolean fixed = schema.getType() == Schema.Type.FIXED;
        return value -> {
            if (!(value instanceof BigDecimal)) {
                return value;
            }
            BigDecimal number = (BigDecimal) value;
            if (number.precision() > decimal.getPrecision()) {
                throw new IllegalArgumentException("The decimal precision is bigger than allowed by schema");
            }
            if (number.scale() > decimal.getScale()) {
                throw new IllegalArgumentException("Scale provided in schema does not match the decimal");
            }
            BigInteger unscaled = number.setScale(decimal.getScale()).unscaledValue();
            int size = fixed ? schema.getFixedSize() : (unscaled.abs().bitLength() + 8) / 8;
            byte[] minimal = unscaled.toByteArray();
            byte[] out = new byte[size];
            byte fill = (byte) (unscaled.signum() < 0 ? 0xff : 0);
            int pad = size - minimal.length;
            for (int i = 0; i < size; i++) {
                out[i] = i < pad ? fill : minimal[i - pad];
            }
            return out;
        };
    }

    private static Object present(Object value, Schema schema) {
        if (value == null) {
            throw new IllegalArgumentException("null where " + schema + " allows none");
        }
        return value;
    }

    private static boolean isIntegral(Object value) {
        return value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte;
    }

    private static long integral(Object value) {
        if (!isIntegral(value)) {
            throw new IllegalArgumentException(value + " is not an integer");
        }
        return ((Number) value).longValue();
    }

    private static float asFloat(Object value) {
        // Python packs an int as a double first, then as a float.
        return isIntegral(value) ? (float) (double) ((Number) value).longValue() : ((Number) value).floatValue();
    }

    private static double asDouble(Object value) {
        if (!(value instanceof Number) || value instanceof BigDecimal) {
            throw new IllegalArgumentException(value + " is not a number");
        }
        return ((Number) value).doubleValue();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        return (List<Object>) scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Seq<Object>) value);
    }

    private static boolean all(List<Object> items, Accepts check) {
        for (Object item : items) {
            if (!check.test(item)) {
                return false;
            }
        }
        return true;
    }
}
