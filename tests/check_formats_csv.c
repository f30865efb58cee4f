/* Tests: the CSV record formats on bytes alone: every rocprofv3 kernel_trace header
 * generation and the legacy rocprof one, the copy/API/allocation/counter traces, stats
 * reports, nsys and nvprof exports; quoted names with commas, missing columns, bad numbers
 * (a warning naming the line), unit conversions, empty and header-only files, any chunking,
 * sniffing. The fixture files and fuzz findings are in check_formats_csv_files.c. */
#include "tests/formats_csv_sink.h"

Suite *formats_csv_files_suite(void);

START_TEST(kernel_trace_header_generations) {
    collected c;
    read_facts f;
    diag_list d;
    /* 2024: Private/Group_Segment_Size, no VGPR columns: grid yes, resources not (never a made-up 0) */
    read_text("kernel-trace-csv",
              "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
              "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Private_Segment_Size\",\"Group_Segment_Size\","
              "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
              "\"KERNEL_DISPATCH\",1,2,69,1,16,\"k(float*, int)\",1451,8819330200067564,8819330200116308,0,0,64,1,1,"
              "1024,1024,1\n",
              7, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_str_eq(c.name[0], "k(float*, int)");
    ck_assert(c.r[0].has & RF_GRID);
    ck_assert(!(c.r[0].has & RF_RESOURCES));
    ck_assert_uint_eq(c.r[0].grid[0], 1024);
    ck_assert_uint_eq(c.r[0].grid[1], 1024);
    ck_assert_uint_eq(c.r[0].workgroup[0], 64);
    ck_assert_int_eq(c.r[0].stream, 2);   /* no Stream_Id: the queue */
    ck_assert_uint_eq(c.r[0].n_fields, 0);
    ck_assert(c.r[0].start_ns == (i128)8819330200067564LL && c.r[0].duration_ns == 48744);
    done(&f, &d);
    /* newest: LDS_Block_Size, Scratch_Size, VGPR_Count, Accum_VGPR_Count, SGPR_Count */
    read_text("kernel-trace-csv",
              "Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
              "Start_Timestamp,End_Timestamp,LDS_Block_Size,Scratch_Size,VGPR_Count,Accum_VGPR_Count,SGPR_Count,"
              "Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n"
              "KERNEL_DISPATCH,4,1,9,7,1,7,gemm,4,100,350,16384,256,128,64,96,256,1,1,65536,8,1\n",
              1, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert(c.r[0].has & RF_RESOURCES);
    ck_assert_uint_eq(c.r[0].lds_bytes, 16384);
    ck_assert_uint_eq(c.r[0].scratch_bytes, 256);
    ck_assert_uint_eq(c.r[0].vgpr, 128);    /* the architectural VGPRs, not Accum_VGPR_Count */
    ck_assert_uint_eq(c.r[0].sgpr, 96);
    ck_assert_int_eq(c.r[0].stream, 9);
    ck_assert_str_eq(c.field0[0], "queue_id=1");   /* the queue beside the stream */
    ck_assert_int_eq(c.r[0].device, 4);
    ck_assert_uint_eq(c.r[0].correlation_id, 4);
    done(&f, &d);
    /* legacy rocprof results.csv / timestamps.csv */
    read_text("kernel-trace-csv",
              "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,vgpr,sgpr,fbar,sig,obj,"
              "DispatchNs,BeginNs,EndNs,CompleteNs\n"
              "0,\"fill(int, int).kd\",3,5,0,202131,202132,33554432,256,512,16,4,32,4160,0x0,0x7f,10,20,260,300\n",
              3, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_str_eq(c.name[0], "fill(int, int).kd");
    ck_assert(c.r[0].duration_ns == 240);
    ck_assert_int_eq(c.r[0].device, 3);
    ck_assert_int_eq(c.r[0].stream, 5);
    ck_assert_int_eq(c.r[0].pid, 202131);
    ck_assert_int_eq(c.r[0].tid, 202132);
    ck_assert_uint_eq(c.r[0].grid[0], 33554432);
    ck_assert_uint_eq(c.r[0].grid[1], 1);
    ck_assert_uint_eq(c.r[0].lds_bytes, 512);
    ck_assert_uint_eq(c.r[0].scratch_bytes, 16);
    done(&f, &d);
}
END_TEST

START_TEST(kernel_trace_extra_columns_only_when_asked) {
    const char *t = "Kernel_Name,Start_Timestamp,End_Timestamp,Grid_Size_X,Grid_Size_Y,Grid_Size_Z,"
                    "Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z\nk,1,5,1,1,1,1,1,1\n";
    collected c;
    read_facts f;
    diag_list d;
    read_n("kernel-trace-csv", t, strlen(t), 64, 0, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_uint_eq(c.r[0].has, RF_DURATION);
    done(&f, &d);
    read_n("kernel-trace-csv", t, strlen(t), 64, RF_GRID, &c, &f, &d);
    ck_assert_uint_eq(c.r[0].has, RF_DURATION | RF_GRID);
    done(&f, &d);
}
END_TEST

START_TEST(memory_copies_every_direction) {
    collected c;
    read_facts f;
    diag_list d;
    read_text("rocprof-memory-copy-csv",
              "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\","
              "\"Start_Timestamp\",\"End_Timestamp\"\n"
              "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",1,0,2,952,2414192684609085,2414192684710679\n"
              "\"MEMORY_COPY\",\"MEMORY_COPY_DEVICE_TO_HOST\",1,2,0,953,100,200\n"
              "\"MEMORY_COPY\",\"MEMORY_COPY_DEVICE_TO_DEVICE\",1,2,2,954,100,200\n"
              "\"MEMORY_COPY\",\"MEMORY_COPY_PEER_TO_PEER\",1,2,3,955,100,200\n"
              "\"MEMORY_COPY\",\"MEMORY_COPY_SOMETHING_NEW\",1,2,3,956,100,200\n",
              5, &c, &f, &d);
    ck_assert_uint_eq(c.n, 5);
    ck_assert_int_eq(c.r[0].copy, COPY_HTOD);
    ck_assert_int_eq(c.r[0].device, 2);          /* the GPU end */
    ck_assert_int_eq(c.r[0].peer_device, 0);
    ck_assert(c.r[0].duration_ns == 101594);
    ck_assert(!(c.r[0].has & RF_BYTES));         /* the file has no size column: unknown */
    ck_assert_int_eq(c.r[1].copy, COPY_DTOH);
    ck_assert_int_eq(c.r[1].device, 2);
    ck_assert_int_eq(c.r[2].copy, COPY_DTOD);
    ck_assert_int_eq(c.r[3].copy, COPY_PTOP);
    ck_assert_int_eq(c.r[3].peer_device, 3);
    ck_assert_int_eq(c.r[4].copy, COPY_UNKNOWN);
    ck_assert_uint_eq(c.r[0].correlation_id, 952);
    ck_assert_uint_eq(d.count, 0);
    done(&f, &d);
}
END_TEST

START_TEST(bad_numbers_warn_with_their_line) {
    collected c;
    read_facts f;
    diag_list d;
    read_text("rocprof-memory-copy-csv",
              "Kind,Direction,Stream_Id,Source_Agent_Id,Destination_Agent_Id,Correlation_Id,Start_Timestamp,End_Timestamp\n"
              "MEMORY_COPY,MEMORY_COPY_HOST_TO_DEVICE,1,0,2,1,100,200\n"
              "MEMORY_COPY,MEMORY_COPY_HOST_TO_DEVICE,1,0,2,2,1x0,200\n"
              "MEMORY_COPY,MEMORY_COPY_HOST_TO_DEVICE,1,0,2,3,300,200\n"
              "MEMORY_COPY,MEMORY_COPY_HOST_TO_DEVICE,1,0,2,4,,200\n"
              "MEMORY_COPY,MEMORY_COPY_HOST_TO_DEVICE,1,0,2,5,-1e40,1e40\n",   /* (e - b wrapped: -1 ns) */
              4096, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert(warned(&d, "1 rows skipped: timestamp beyond 2^62 ns", "line 6"));
    ck_assert_msg(warned(&d, "bytes.csv: 2 rows skipped: no integer start and end timestamps", "first at line 3"),
                  "%s", d.count ? d.items[0] : "(none)");
    ck_assert(warned(&d, "1 rows skipped: end timestamp before start", "line 4"));
    ck_assert_uint_eq(f.rows_used, 1);
    done(&f, &d);
    read_text("rocprof-kernel-stats-csv", "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev\n"
              "a,1,10,10,50,10,10,0\nb,two,10,10,50,10,10,0\nc,4.5,10,10,50,10,10,0\nd,-1,10,10,50,10,10,0\n"
              "e,2,1x,10,50,10,10,0\n", 16, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert(warned(&d, "3 rows skipped: calls not a non-negative integer", "line 3"));
    ck_assert(warned(&d, "1 rows skipped: total time not a non-negative number", "line 6"));
    done(&f, &d);
}
END_TEST

START_TEST(missing_columns_and_empty_files) {
    collected c;
    read_facts f;
    diag_list d;
    read_text("rocprof-memory-copy-csv", "Kind,Direction,Stream_Id\nMEMORY_COPY,X,1\n", 8, &c, &f, &d);
    ck_assert_uint_eq(c.n, 0);
    ck_assert_msg(warned(&d, "bytes.csv: line 1: the memory copy trace header lacks a required column", "Start_Timestamp"), "%s",
                  d.count ? d.items[0] : "(none)");
    done(&f, &d);
    read_text("rocprof-hip-api-csv", "", 8, &c, &f, &d);
    ck_assert_uint_eq(c.n, 0);
    ck_assert(warned(&d, "bytes.csv: empty HIP API trace (no header line)", NULL));
    done(&f, &d);
    /* header only: nothing, and nothing to warn about */
    read_text("rocprof-hip-api-csv",
              "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n",
              3, &c, &f, &d);
    ck_assert_uint_eq(c.n, 0);
    ck_assert_uint_eq(d.count, 0);
    done(&f, &d);
    /* a quoted field cut by the end of the file: a warning, no partial record */
    read_text("rocprof-hip-api-csv",
              "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp\n"
              "HIP_RUNTIME_API,hipMalloc,1,1,1,10,20\nHIP_RUNTIME_API,\"hipFr", 5, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert(f.truncated);
    ck_assert(warned(&d, "line 3", "truncated"));
    done(&f, &d);
    /* nvprof: no header among the first 100 records */
    read_text("nvprof-gpu-trace-csv", "==1== a\n==1== b\n1,2,3\n", 5, &c, &f, &d);
    ck_assert_uint_eq(c.n, 0);
    ck_assert(warned(&d, "no nvprof GPU trace header in the first 100 lines", "'Start (ns)'"));
    done(&f, &d);
    /* a line of 1,100 cells is never a header, even naming every required column (a column
     * pick over such lines, 100 times, was the CPU a hostile file could burn); the real
     * header after it is found */
    strbuf big = {0};
    for (int rep = 0; rep < 2; rep++) {
        ck_assert(strbuf_append(&big, "Start (ns),Duration (ns),Name", 29));
        for (int i = 0; i < 1100; i++) ck_assert(strbuf_append(&big, ",x", 2));
        ck_assert(strbuf_putc(&big, '\n'));
    }
    ck_assert(strbuf_terminate(&big));
    read_text("nsys-cuda-gpu-trace-csv", big.data, 4096, &c, &f, &d);
    ck_assert_uint_eq(c.n, 0);
    ck_assert(warned(&d, "2 lines too large for a header (over 1024 cells or 64 KiB)", "first at line 1"));
    done(&f, &d);
    ck_assert(strbuf_append(&big, "Start (ns),Duration (ns),Name\n10,5,gemm\n", 40));
    ck_assert(strbuf_terminate(&big));
    read_text("nsys-cuda-gpu-trace-csv", big.data, 4096, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_str_eq(c.name[0], "gemm");
    done(&f, &d);
    strbuf_free(&big);
}
END_TEST

START_TEST(api_calls_and_domains) {
    collected c;
    read_facts f;
    diag_list d;
    read_text("rocprof-hsa-api-csv",
              "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
              "\"HSA_CORE_API\",\"hsa_agent_get_info\",57,58,1,1056813747808832,1056813747809252\n"
              "\"HIP_RUNTIME_API\",\"hipMalloc\",57,57,2,1,2\n"
              "\"RCCL_API\",\"ncclAllReduce\",57,57,3,1,2\n",
              2, &c, &f, &d);
    ck_assert_uint_eq(c.n, 3);
    ck_assert_int_eq(c.r[0].domain, API_HSA);
    ck_assert_str_eq(c.name[0], "hsa_agent_get_info");
    ck_assert_str_eq(c.category[0], "HSA_CORE_API");
    ck_assert(c.r[0].duration_ns == 420);
    ck_assert_int_eq(c.r[0].pid, 57);
    ck_assert_int_eq(c.r[0].tid, 58);
    ck_assert_int_eq(c.r[1].domain, API_HIP);
    ck_assert_int_eq(c.r[2].domain, API_OTHER);
    done(&f, &d);
}
END_TEST

START_TEST(allocations_and_counters) {
    collected c;
    read_facts f;
    diag_list d;
    read_text("rocprof-memory-allocation-csv",
              "\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\",\"Start_Timestamp\","
              "\"End_Timestamp\"\n"
              "\"MEMORY_ALLOCATION\",\"MEMORY_ALLOCATION_ALLOCATE\",\"Agent 0\",1024,\"0x1\",1,10,20\n"
              "\"MEMORY_ALLOCATION\",\"MEMORY_ALLOCATION_FREE\",\"\",0,\"0x1\",7,30,40\n"
              "\"MEMORY_ALLOCATION\",\"MEMORY_ALLOCATION_NONE\",\"\",0,\"0x1\",8,30,40\n",
              1, &c, &f, &d);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_str_eq(c.category[0], "alloc");
    ck_assert_uint_eq(c.r[0].bytes, 1024);
    ck_assert_int_eq(c.r[0].device, 0);
    ck_assert(c.r[0].has & RF_DEVICE);
    ck_assert_str_eq(c.category[1], "free");
    ck_assert(!(c.r[1].has & RF_BYTES));     /* a free's 0 is the tracer's "unknown" */
    ck_assert(!(c.r[1].has & RF_DEVICE));
    ck_assert(warned(&d, "neither an allocation nor a free", "line 4"));
    done(&f, &d);
    read_text("rocprof-counter-csv",
              "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\","
              "\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
              "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"\n"
              "1,5,\"Agent 1\",1,15606,15606,1048576,17,\"add(float*, int)\",64,0,0,8,0,16,\"SQ_WAVES\",16384.500000,10,30\n"
              /* saturated times: the value without them (their difference wrapped) */
              "1,6,\"Agent 1\",1,15606,15606,1048576,17,\"add(float*, int)\",64,0,0,8,0,16,\"SQ_WAVES\",1,-1e40,1e40\n"
              /* end before start: the value without times, counted */
              "1,7,\"Agent 1\",1,15606,15606,1048576,17,\"add(float*, int)\",64,0,0,8,0,16,\"SQ_WAVES\",2,30,10\n"
              /* one timestamp unreadable, one missing: the value without times, counted; none: nothing to say */
              "1,8,\"Agent 1\",1,15606,15606,1048576,17,\"add(float*, int)\",64,0,0,8,0,16,\"SQ_WAVES\",3,abc,10\n"
              "1,9,\"Agent 1\",1,15606,15606,1048576,17,\"add(float*, int)\",64,0,0,8,0,16,\"SQ_WAVES\",4,,10\n"
              "1,10,\"Agent 1\",1,15606,15606,1048576,17,\"add(float*, int)\",64,0,0,8,0,16,\"SQ_WAVES\",5,,\n",
              4, &c, &f, &d);
    ck_assert_uint_eq(c.n, 6);
    for (size_t i = 3; i < 6; i++) ck_assert(!(c.r[i].has & (RF_START | RF_END | RF_DURATION)));
    ck_assert(warned(&d, "2 rows kept without their times (a timestamp missing or not an integer)", "line 5"));
    ck_assert(c.r[0].duration_ns == 20 && !(c.r[1].has & (RF_START | RF_DURATION)));
    ck_assert(c.r[2].number == 2.0 && !(c.r[2].has & (RF_START | RF_END | RF_DURATION)));
    ck_assert(warned(&d, "1 rows kept without their times (beyond 2^62 ns)", "line 3"));
    ck_assert(warned(&d, "1 rows kept without their times (end before start)", "line 4"));
    ck_assert_str_eq(c.name[0], "SQ_WAVES");
    ck_assert(c.r[0].number == 16384.5);
    ck_assert_int_eq(c.r[0].device, 1);
    ck_assert_uint_eq(c.r[0].correlation_id, 1);
    ck_assert_str_eq(c.field0[0], "dispatch_id=5");
    done(&f, &d);
}
END_TEST

/* A header past 16,384 cells or 1 MiB is not picked from (a pick over 65,000 names of 900
 * bytes cost 7 s and 215 MB for one kernel trace): every column absent, warned with its line;
 * a header of 16,300 cells, under the bound, still gives its columns (the widest real one,
 * rocprof-compute's pmc_perf.csv, has 2,718). */
START_TEST(oversized_headers_are_not_picked_from) {
    static const struct { const char *format, *head, *row; uint32_t reading; } CASES[] = {
        {"kernel-trace-csv", "Kernel_Name,Start_Timestamp,End_Timestamp", "gemm,10,20", RF_DURATION},
        {"amd-smi-csv", "timestamp,gpu,gfx_activity,used_vram", "1786553852,0,10,1024", RF_UTIL},
        {"nvidia-smi-csv", "timestamp, index, utilization.gpu [%], memory.used [MiB]",
         "2023/06/22 18:56:56.252, 0, 22 %, 841 MiB", RF_UTIL},
        {"rocprof-hip-api-csv", "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp",
         "HIP_RUNTIME_API,hipMalloc,1,1,1,10,20", RF_DURATION},
    };
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++)
        for (int pad = 16300; pad <= 16400; pad += 100) {
            strbuf b = {0};
            ck_assert(strbuf_append(&b, CASES[k].head, strlen(CASES[k].head)));
            for (int i = 0; i < pad; i++) ck_assert(strbuf_append(&b, ",x", 2));
            ck_assert(strbuf_putc(&b, '\n') && strbuf_append(&b, CASES[k].row, strlen(CASES[k].row)) &&
                      strbuf_putc(&b, '\n') && strbuf_terminate(&b));
            collected c;
            read_facts f;
            diag_list d;
            read_text(CASES[k].format, b.data, 4096, &c, &f, &d);
            bool refused = warned(&d, "line 1: a header of more than 16384 cells or 1 MiB is not read", "no column taken");
            ck_assert_msg(refused == (pad > 16300), "%s, %d cells", CASES[k].format, pad);
            bool read = false;                   /* (amd-smi sends a sample per row, known or not) */
            for (size_t i = 0; i < c.n; i++) read |= (c.r[i].has & CASES[k].reading) != 0;
            ck_assert_msg(read == (pad == 16300), "%s: %zu records", CASES[k].format, c.n);
            done(&f, &d);
            strbuf_free(&b);
        }
}
END_TEST

START_TEST(stats_reports) {
    collected c;
    read_facts f;
    diag_list d;
    /* legacy: no min/max; one call gives them, several do not */
    read_text("rocprof-kernel-stats-csv",
              "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
              "\"gemm(unsigned int, float const*)\",1,331634184678,331634184678,90.0\n"
              "\"other\",4,1000,250,10.0\n"
              "\"not_whole\",4.04,1000,250,10.0\n",      /* no count of calls: skipped (it was 4) */
              6, &c, &f, &d);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_str_eq(c.name[0], "gemm(unsigned int, float const*)");
    ck_assert_str_eq(c.category[0], "kernel");
    ck_assert(c.r[0].has & RF_CALLS);
    ck_assert(c.r[0].duration_ns == (i128)331634184678LL && c.r[0].min_ns == c.r[0].duration_ns);
    ck_assert(!(c.r[1].has & RF_CALLS));
    ck_assert_str_eq(c.field0[1], "calls=4");
    done(&f, &d);
    read_text("rocprof-domain-stats-csv",
              "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n"
              "\"HIP_API\",13,458514859,35270373.769231,100.00,2300,352276613,99315857.546240\n",
              64, &c, &f, &d);
    ck_assert_str_eq(c.category[0], "domain");
    ck_assert_uint_eq(c.r[0].calls, 13);
    ck_assert(c.r[0].min_ns == 2300 && c.r[0].max_ns == 352276613);
    done(&f, &d);
    read_text("nsys-cuda-gpu-mem-time-sum-csv",
              "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"
              "80.0,400000,2,200000.0,200000.0,150000,250000,70710.7,[CUDA memcpy Host-to-Device]\n"
              "5.0,25000,5,5000.0,5000.0,4000,6000,707.1,[CUDA memset]\n",
              9, &c, &f, &d);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_str_eq(c.category[0], "memory_copy");
    ck_assert_str_eq(c.category[1], "memset");
    ck_assert_str_eq(c.field0[0], "median_ns=200000.0");
    ck_assert_uint_eq(c.r[1].calls, 5);
    done(&f, &d);
    /* nsys stats --timeunit usec / msec: the header's unit, scaled exactly to ns (the "Total
     * Time" candidate matched "Total Time (us)" and read microseconds as ns, and the sniff
     * refused the file) */
    const char *US = "Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name\n"
                     "100.0,1.5,2,0.75,0.75,0.5,1.0,0.354,k\n";
    ck_assert_int_ge(format_named("nsys-cuda-gpu-kern-sum-csv")->sniff("x_cuda_gpu_kern_sum.csv",
                                                                         (const uint8_t *)US, strlen(US)), 50);
    read_text("nsys-cuda-gpu-kern-sum-csv", US, 7, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert(c.r[0].duration_ns == 1500 && c.r[0].min_ns == 500 && c.r[0].max_ns == 1000);
    ck_assert_str_eq(c.field0[0], "median_ns=750");
    done(&f, &d);
    read_text("nsys-cuda-gpu-kern-sum-csv",
              "Time (%),Total Time (ms),Instances,Avg (ms),Med (ms),Min (ms),Max (ms),StdDev (ms),Name\n"
              "100.0,2.000001,1,2.000001,2.000001,2.000001,2.000001,0.0,k\n", 5, &c, &f, &d);
    ck_assert(c.n == 1 && c.r[0].duration_ns == 2000001 && c.r[0].min_ns == 2000001);
    done(&f, &d);
}
END_TEST

static void nvprof_units(const char *units, const char *start, const char *dur, i128 want_start, i128 want_dur) {
    char text[1024];
    snprintf(text, sizeof text,
             "==1== NVPROF is profiling process 1, command: ./a\n==1== Profiling result:\n"
             "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\",\"Size\","
             "\"Device\",\"Stream\",\"Name\",\"Correlation_ID\"\n%s%s,%s,1,1,1,32,1,1,,\"GPU (1)\",\"7\",\"k(int, int)\",5\n",
             units, start, dur);
    collected c;
    read_facts f;
    diag_list d;
    read_text("nvprof-gpu-trace-csv", text, 3, &c, &f, &d);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_msg(c.r[0].start_ns == want_start, "%s start %s: %lld", units, start, (long long)c.r[0].start_ns);
    ck_assert_msg(c.r[0].duration_ns == want_dur, "%s dur %s: %lld", units, dur, (long long)c.r[0].duration_ns);
    ck_assert_int_eq(c.r[0].device, 1);
    ck_assert_str_eq(c.name[0], "k(int, int)");
    ck_assert_uint_eq(d.count, 0);
    done(&f, &d);
}

START_TEST(nvprof_units_convert_exactly) {
    nvprof_units("s,s,,,,,,,,,,,\n", "1.000000001", "0.000002", 1000000001, 2000);
    nvprof_units("ms,us,,,,,,,,,,,\n", "251.366431", "2.592000", 251366431, 2592);
    nvprof_units("us,ns,,,,,,,,,,,\n", "12.5", "7", 12500, 7);
    nvprof_units("ns,ns,,,,,,,,,,,\n", "123456789012345", "1", (i128)123456789012345LL, 1);
    nvprof_units("", "3.25", "1.0005", 3250, 1001);      /* no units row: microseconds, nearest ns */
}
END_TEST

START_TEST(decimal_scaling) {
    i128 v;
    ck_assert(csv_rows_decimal_scaled("1.5", 3, 3, &v) && v == 1500);
    ck_assert(csv_rows_decimal_scaled("1e-3", 4, 6, &v) && v == 1000);
    ck_assert(csv_rows_decimal_scaled("-2.25", 5, 1, &v) && v == -23);   /* half away from zero */
    ck_assert(csv_rows_decimal_scaled("0.0000000005", 12, 9, &v) && v == 1);
    ck_assert(!csv_rows_decimal_scaled("1.2.3", 5, 0, &v));
    ck_assert(!csv_rows_decimal_scaled("", 0, 0, &v));
    ck_assert(!csv_rows_decimal_scaled("12ab", 4, 0, &v));
    ck_assert(!csv_rows_decimal_scaled("1e40", 4, 0, &v));
    /* a mantissa near its 2^100 limit shifted up: refused, never a wrapped i128 (these were
     * 1,073,741,824 and -1.4e38) */
    ck_assert(!csv_rows_decimal_scaled("154072529997519064519792581785e30", 34, 0, &v));
    ck_assert(!csv_rows_decimal_scaled("200000000e30", 12, 0, &v));
    ck_assert(csv_rows_decimal_scaled("9223372036854775807", 19, 0, &v) && v == INT64_MAX);
    ck_assert(!csv_rows_decimal_scaled("9223372036854775808", 19, 0, &v));
}
END_TEST

START_TEST(nsys_gpu_trace_rows) {
    collected c;
    read_facts f;
    diag_list d;
    read_text("nsys-cuda-gpu-trace-csv",
              "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
              "Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n"
              "1000,150,101,,,,,,,,,,4.194304,27960.0,Pageable,Device,NVIDIA A100 (2),1,,7,[CUDA memcpy Host-to-Device]\n"
              "2000,450,105,128,8,1,256,1,1,128,0.016,0.000,,,,,NVIDIA A100 (2),1,,7,\"k<4, 2>(int, float)\"\n"
              "3000,40,107,,,,,,,,,,1.000,2.0,,Device,NVIDIA A100 (2),1,,7,[CUDA memset]\n"
              "4000,20,110,,,,,,,,,,0.5,26200.0,Device,Device,NVIDIA A100 (2),1,,13,[CUDA memcpy Peer-to-Peer]\n",
              13, &c, &f, &d);
    ck_assert_uint_eq(c.n, 4);
    ck_assert_int_eq(c.r[0].type, REC_MEMORY_COPY);
    ck_assert_int_eq(c.r[0].copy, COPY_HTOD);
    ck_assert_uint_eq(c.r[0].bytes, 4194304);
    ck_assert_int_eq(c.r[0].device, 2);
    ck_assert(c.r[0].end_ns == 1150);
    ck_assert_int_eq(c.r[1].type, REC_KERNEL_DISPATCH);
    ck_assert_str_eq(c.name[1], "k<4, 2>(int, float)");
    ck_assert(c.r[1].has & RF_GRID);
    ck_assert_uint_eq(c.r[1].grid[0], 128);
    ck_assert_uint_eq(c.r[1].workgroup[0], 256);
    ck_assert_int_eq(c.r[2].type, REC_MEMSET);
    ck_assert_uint_eq(c.r[2].bytes, 1000000);
    ck_assert_int_eq(c.r[3].copy, COPY_PTOP);
    ck_assert_int_eq(c.r[3].stream, 13);
    ck_assert_uint_eq(d.count, 0);
    done(&f, &d);
}
END_TEST

/* Every chunk size gives the same records (a cut anywhere, even inside a quoted name). */
START_TEST(chunking_does_not_matter) {
    const char *t = "==1== banner, with a comma\n\"Start\",\"Duration\",\"Size\",\"Device\",\"Stream\",\"Name\"\n"
                    "ms,us,KB,,,\n1.5,2.25,1.5,\"G (0)\",\"1\",\"[CUDA memcpy HtoD]\"\n2,3,,\"G (0)\",\"1\",\"k(a, b)\"\n";
    collected one, c;
    read_facts f;
    diag_list d;
    read_text("nvprof-gpu-trace-csv", t, strlen(t), &one, &f, &d);
    ck_assert_uint_eq(one.n, 2);
    ck_assert_uint_eq(one.r[0].bytes, 1536);   /* nvprof's KB is 1024 bytes */
    done(&f, &d);
    for (size_t chunk = 1; chunk < 40; chunk++) {
        read_text("nvprof-gpu-trace-csv", t, chunk, &c, &f, &d);
        ck_assert_uint_eq(c.n, one.n);
        for (size_t i = 0; i < c.n; i++) {
            ck_assert_str_eq(c.name[i], one.name[i]);
            ck_assert(c.r[i].start_ns == one.r[i].start_ns && c.r[i].duration_ns == one.r[i].duration_ns);
            ck_assert_uint_eq(c.r[i].line, one.r[i].line);
        }
        done(&f, &d);
    }
}
END_TEST

/* Each fixture-shaped file is claimed by its own format: highest sniff among all formats. */
START_TEST(sniff_names_and_headers) {
    static const struct { const char *file, *head, *format; } CASES[] = {
        {"4242_memory_copy_trace.csv", "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\"\n\"MEMORY_COPY_HOST_TO_DEVICE\"",
         "rocprof-memory-copy-csv"},
        {"4242_hip_api_trace.csv", "\"Domain\",\"Function\",\"Process_Id\"", "rocprof-hip-api-csv"},
        {"host/4242_hsa_api_trace.csv", "\"Domain\",\"Function\",\"Process_Id\"", "rocprof-hsa-api-csv"},
        {"4242_memory_allocation_trace.csv", "\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\"",
         "rocprof-memory-allocation-csv"},
        {"4242_counter_collection.csv", "\"Correlation_Id\",\"Counter_Name\"", "rocprof-counter-csv"},
        {"4242_kernel_stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\"", "rocprof-kernel-stats-csv"},
        {"results.stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\"", "rocprof-kernel-stats-csv"},
        {"4242_hip_api_stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\"", "rocprof-api-stats-csv"},
        {"4242_memory_copy_stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\"", "rocprof-memory-copy-stats-csv"},
        {"4242_domain_stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\"", "rocprof-domain-stats-csv"},
        {"r_cuda_gpu_kern_sum.csv", "Time (%),Total Time (ns),Instances", "nsys-cuda-gpu-kern-sum-csv"},
        {"r_cuda_gpu_mem_time_sum.csv", "Time (%),Total Time (ns),Count", "nsys-cuda-gpu-mem-time-sum-csv"},
        {"r_cuda_gpu_trace.csv", "Start (ns),Duration (ns),CorrId", "nsys-cuda-gpu-trace-csv"},
        {"run1.csv", "==1== x\n\"Start\",\"Duration\",\"Grid X\"", "nvprof-gpu-trace-csv"},
        {"results.csv", "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,vgpr,sgpr,fbar,sig,obj,"
         "DispatchNs,BeginNs,EndNs,CompleteNs", "rocprof-legacy-results-csv"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const artefact_parser *best = NULL;
        int best_score = 0;
        for (const artefact_parser *const *p = parser_list(); *p; p++) {
            if ((*p)->kind != ARTEFACT_ANALYSIS_ONLY) continue;
            int s = (*p)->sniff(CASES[i].file, (const uint8_t *)CASES[i].head, strlen(CASES[i].head));
            if (s > best_score) best = *p, best_score = s;
        }
        ck_assert_msg(best && !strcmp(best->name, CASES[i].format), "%s: %s, not %s", CASES[i].file,
                      best ? best->name : "none", CASES[i].format);
    }
}
END_TEST

static Suite *formats_csv_suite(void) {
    Suite *s = suite_create("formats_csv");
    TCase *tc = tcase_create("bytes");
    tcase_add_test(tc, kernel_trace_header_generations);
    tcase_add_test(tc, oversized_headers_are_not_picked_from);
    tcase_add_test(tc, kernel_trace_extra_columns_only_when_asked);
    tcase_add_test(tc, memory_copies_every_direction);
    tcase_add_test(tc, bad_numbers_warn_with_their_line);
    tcase_add_test(tc, missing_columns_and_empty_files);
    tcase_add_test(tc, api_calls_and_domains);
    tcase_add_test(tc, allocations_and_counters);
    tcase_add_test(tc, stats_reports);
    tcase_add_test(tc, nvprof_units_convert_exactly);
    tcase_add_test(tc, decimal_scaling);
    tcase_add_test(tc, nsys_gpu_trace_rows);
    tcase_add_test(tc, chunking_does_not_matter);
    tcase_add_test(tc, sniff_names_and_headers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(formats_csv_suite());
    srunner_add_suite(sr, formats_csv_files_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
