package org.sqlregistry.pipeline;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
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
            header = PlanFiles.bytes(plan.get("header").asText());
            write = AvroWrites.writer(PlanFiles.schema(plan.get("writer")),
                    DataType.fromJson(plan.get("spark_type").asText()));
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
        return PLANS.computeIfAbsent(planName, name -> new Plan(PlanFiles.read(name, "encode"))).encode(row);
    }
}
