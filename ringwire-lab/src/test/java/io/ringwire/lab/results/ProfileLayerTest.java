package io.ringwire.lab.results;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The rules that put a sample of a server's profile in a layer, on stacks as async-profiler 4.1 writes them
 * (collapsed: root first; kernel frames with {@code _[k]}; Java classes with slashes).
 */
class ProfileLayerTest {
    private static final String RINGWIRE_LOOP = "java/lang/Thread.run;io/netty/util/concurrent/"
        + "SingleThreadEventExecutor$5.run;io/ringwire/transport/RingwireIoHandler.run";
    private static final String ENTER = RINGWIRE_LOOP + ";io/ringwire/uring/Ring.enter;syscall;"
        + "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_io_uring_enter_[k];"
        + "__do_sys_io_uring_enter_[k];io_submit_sqes_[k]";
    private static final String EPOLL_LOOP = "java/lang/Thread.run;io/netty/channel/epoll/EpollIoHandler.run";

    @Test
    void kernelTcpUnderAnIoUringSendIsTcpIp() {
        assertEquals(ProfileLayer.KERNEL_TCP_IP, ProfileLayer.of(ENTER + ";io_issue_sqe_[k];io_send_[k];"
            + "sock_sendmsg_[k];tcp_sendmsg_[k];tcp_sendmsg_locked_[k];copy_user_generic_[k]"));
        assertEquals(ProfileLayer.KERNEL_TCP_IP, ProfileLayer.of(ENTER + ";io_issue_sqe_[k];io_send_[k];"
            + "sock_sendmsg_[k];tcp_sendmsg_[k];__tcp_push_pending_frames_[k];tcp_write_xmit_[k];ip_output_[k];"
            + "__dev_queue_xmit_[k];__local_bh_enable_ip_[k];handle_softirqs_[k];net_rx_action_[k];"
            + "__netif_receive_skb_one_core_[k];tcp_v4_rcv_[k];_raw_spin_lock_[k]"));
    }

    @Test
    void ioUringAndEpollOwnCodeAndReadinessChecksArePollCode() {
        assertEquals(ProfileLayer.KERNEL_POLL, ProfileLayer.of(ENTER));
        assertEquals(ProfileLayer.KERNEL_POLL, ProfileLayer.of(ENTER + ";io_issue_sqe_[k];memset_orig_[k]"));
        assertEquals(ProfileLayer.KERNEL_POLL, ProfileLayer.of(EPOLL_LOOP + ";io/netty/channel/epoll/Native.epollWait0;"
            + "epoll_wait;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_epoll_wait_[k];"
            + "do_epoll_wait_[k];ep_poll_[k];ep_send_events_[k];ep_item_poll.isra.0_[k];sock_poll_[k];tcp_poll_[k]"));
        // a wake-up the socket hands to io_uring's poll or to epoll's callback
        assertEquals(ProfileLayer.KERNEL_POLL, ProfileLayer.of(ENTER + ";io_issue_sqe_[k];io_send_[k];"
            + "sock_sendmsg_[k];tcp_sendmsg_[k];tcp_data_queue_[k];sock_def_readable_[k];__wake_up_common_[k];"
            + "io_poll_wake_[k];_raw_spin_unlock_irqrestore_[k]"));
        assertEquals(ProfileLayer.KERNEL_POLL, ProfileLayer.of("x;tcp_data_queue_[k];sock_def_readable_[k];"
            + "__wake_up_common_[k];ep_poll_callback_[k];_raw_read_lock_irqsave_[k]"));
    }

    @Test
    void theEntryAndExitOfASystemCallAreSyscallEntry() {
        assertEquals(ProfileLayer.SYSCALL, ProfileLayer.of(RINGWIRE_LOOP + ";syscall;entry_SYSCALL_64_after_hwframe_[k]"));
        assertEquals(ProfileLayer.SYSCALL, ProfileLayer.of(RINGWIRE_LOOP + ";syscall;"
            + "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];syscall_exit_to_user_mode_[k]"));
        assertEquals(ProfileLayer.SYSCALL, ProfileLayer.of(EPOLL_LOOP + ";writev;entry_SYSCALL_64_after_hwframe_[k];"
            + "do_syscall_64_[k];__x64_sys_writev_[k];do_writev_[k];fdget_pos_[k]"));
    }

    @Test
    void theSchedulerPageFaultsAndAKernelStackThatNamesNothingAreOther() {
        assertEquals(ProfileLayer.OTHER, ProfileLayer.of(ENTER + ";io_cqring_wait_[k];schedule_[k];__schedule_[k];"
            + "finish_task_switch.isra.0_[k]"));
        assertEquals(ProfileLayer.OTHER, ProfileLayer.of(RINGWIRE_LOOP + ";asm_exc_page_fault_[k];"
            + "exc_page_fault_[k];clear_page_erms_[k]"));
        // its Java caller (the transport) does not take a kernel sample no kernel frame names
        assertEquals(ProfileLayer.OTHER, ProfileLayer.of(RINGWIRE_LOOP + ";memcpy_orig_[k]"));
        assertEquals(ProfileLayer.OTHER, ProfileLayer.of("[unknown];[unknown]"));
    }

    @Test
    void javaFramesGoToTheirPackagesLayer() {
        assertEquals(ProfileLayer.TRANSPORT, ProfileLayer.of(RINGWIRE_LOOP));
        assertEquals(ProfileLayer.TRANSPORT, ProfileLayer.of(EPOLL_LOOP + ";io/netty/channel/epoll/"
            + "AbstractEpollStreamChannel$EpollStreamUnsafe.epollInReady"));
        assertEquals(ProfileLayer.TRANSPORT, ProfileLayer.of("java/lang/Thread.run;io/netty/channel/uring/"
            + "IoUringIoHandler.run"));
        assertEquals(ProfileLayer.TRANSPORT, ProfileLayer.of("java/lang/Thread.run;io/netty/channel/nio/"
            + "NioIoHandler.run;sun/nio/ch/SocketChannelImpl.read"));
        assertEquals(ProfileLayer.NETTY, ProfileLayer.of(RINGWIRE_LOOP + ";io/netty/channel/DefaultChannelPipeline"
            + ".fireChannelRead;io/netty/handler/codec/ByteToMessageDecoder.channelRead"));
        assertEquals(ProfileLayer.NETTY, ProfileLayer.of(RINGWIRE_LOOP + ";io/netty/buffer/PooledByteBufAllocator"
            + ".newDirectBuffer"));
        assertEquals(ProfileLayer.HANDLER, ProfileLayer.of(RINGWIRE_LOOP + ";io/netty/channel/"
            + "AbstractChannelHandlerContext.invokeChannelRead;io/ringwire/examples/EchoServerHandler.channelRead"));
        assertEquals(ProfileLayer.HANDLER, ProfileLayer.of(RINGWIRE_LOOP + ";io/netty/channel/"
            + "AbstractChannelHandlerContext.invokeChannelRead;io/ringwire/lab/server/LabServer$PausingEchoHandler"
            + ".channelRead"));
        // in the redis-client workload's client, Lettuce's command handling is the workload's
        assertEquals(ProfileLayer.HANDLER, ProfileLayer.of(RINGWIRE_LOOP + ";io/netty/channel/"
            + "AbstractChannelHandlerContext.invokeChannelRead;io/lettuce/core/protocol/CommandHandler.channelRead"));
        // the lab's own sampler in the server is not the workload
        assertEquals(ProfileLayer.OTHER, ProfileLayer.of("java/lang/Thread.run;io/ringwire/lab/server/ServerStats.sample;"
            + "java/lang/Thread.sleep"));
    }

    @Test
    void theJdkLibcAndTheJvmsRuntimeGoToTheirNearestNamedCaller() {
        assertEquals(ProfileLayer.NETTY, ProfileLayer.of(RINGWIRE_LOOP + ";io/netty/buffer/AbstractByteBuf"
            + ".writeBytes;jdk/internal/misc/Unsafe.copyMemory;Unsafe_CopyMemory0;Copy::conjoint_memory_atomic;"
            + "__memmove_avx_unaligned_erms"));
        assertEquals(ProfileLayer.TRANSPORT, ProfileLayer.of(RINGWIRE_LOOP + ";java/util/ArrayDeque.pollFirst"));
        assertEquals(ProfileLayer.TRANSPORT, ProfileLayer.of(RINGWIRE_LOOP + ";io/ringwire/uring/Ring.enter;"
            + "jdk/internal/foreign/abi/DowncallLinker.invoke;[unknown_Java]"));
        assertEquals(ProfileLayer.OTHER, ProfileLayer.of("java/lang/Thread.run;java/util/concurrent/"
            + "ThreadPoolExecutor.runWorker"));
    }

    @Test
    void theCompilerAndTheCollectorAreGcAndJitWhateverTheirLeaf() {
        assertEquals(ProfileLayer.GC_JIT, ProfileLayer.of("start_thread;thread_native_entry;Thread::call_run;"
            + "JavaThread::thread_main_inner;CompileBroker::compiler_thread_loop;CompileBroker::"
            + "invoke_compiler_on_method;C2Compiler::compile_method;Compile::Compile;PhaseIdealLoop::build_loop_late"));
        assertEquals(ProfileLayer.GC_JIT, ProfileLayer.of("start_thread;thread_native_entry;Thread::call_run;"
            + "WorkerThread::run;G1EvacuateRegionsTask::work;asm_exc_page_fault_[k];exc_page_fault_[k]"));
        assertEquals(ProfileLayer.GC_JIT, ProfileLayer.of("start_thread;thread_native_entry;Thread::call_run;"
            + "ConcurrentGCThread::run;G1ConcurrentMarkThread::run_service"));
        assertEquals(ProfileLayer.GC_JIT, ProfileLayer.of("start_thread;thread_native_entry;Thread::call_run;"
            + "VMThread::run;VMThread::inner_execute;VM_G1CollectForAllocation::doit"));
        // a TLAB refill on the event loop: the collector's, not the caller's
        assertEquals(ProfileLayer.GC_JIT, ProfileLayer.of(RINGWIRE_LOOP + ";io/netty/buffer/PoolArena.allocate;"
            + "OptoRuntime::new_instance_C;MemAllocator::allocate;G1CollectedHeap::allocate_new_tlab"));
    }
}
