package org.sqlregistry.pipeline;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.spark.SparkFiles;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataType;

/**
 * Spark SQL function: (struct of the record's columns, plan file name) -> framed Avro bytes.
 *
 * The plan (the header naming the registered writer, the writer's texts with its references',
 * the Spark type of the struct) travels as a file added with SparkContext.addFile, as the
 * decoder's does, and is compiled once per executor JVM into an AvroWrites tree. A value that
 * does not fit the writer throws, failing the job as the Python path's serializer does.
 */
public final class AvroEncodeUdf implements UDF2<Row, String, byte[]> {
    private static final long serialVersionUID = 1L;
    private static final ConcurrentHashMap<String, Plan> PLANS = new ConcurrentHashMap<>();

    private static final class Plan {
        final byte[] header;
        final AvroWrites.Writer write;
        final ThreadLocal<ByteArrayOutputStream> buffer = ThreadLocal.withInitial(ByteArrayOutputStream::new);
        final ThreadLocal<BinaryEncoder> encoder = new ThreadLocal<>();

        Plan(JsonNode plan) {
            String hex = plan.get("header").asText();
            header = new byte[hex.length() / 2];
            for (int i = 0; i < header.length; i++) {
                header[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
            }
            Schema.Parser parser = new Schema.Parser();
            Schema writer = null;
            for (JsonNode text : plan.get("writer")) {
                writer = parser.parse(text.asText());
            }
            write = AvroWrites.writer(writer, DataType.fromJson(plan.get("spark_type").asText()));
        }

        byte[] encode(Row row) throws IOException {
            ByteArrayOutputStream out = buffer.get();
            out.reset();
            out.write(header);
            BinaryEncoder binary = EncoderFactory.get().directBinaryEncoder(out, encoder.get());
            encoder.set(binary);
            write.write(row, binary);
            binary.flush();
            return out.toByteArray();
        }
    }

    @Override
    public byte[] call(Row row, String planName) throws IOException {
        return PLANS.computeIfAbsent(planName, AvroEncodeUdf::load).encode(row);
    }

    private static Plan load(String planName) {
        String path = SparkFiles.get(planName);
        try {
            return new Plan(new ObjectMapper().readTree(Files.readAllBytes(Paths.get(path))));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the encode plan " + path + ": " + e, e);
        }
    }
}
